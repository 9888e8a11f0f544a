import type { PenaltyQuery } from '@sluice/admin/api';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client';
import { downloadBlob } from './download';

/** Every penalty matching the filters, as the server's CSV, saved as a download. */
export function usePenaltiesCsv() {
  return useMutation({
    mutationFn: async (query: Omit<PenaltyQuery, 'cursor' | 'limit'>) =>
      downloadBlob(await api.penaltiesCsv(query), 'penalties.csv'),
  });
}
