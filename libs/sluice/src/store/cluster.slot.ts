/** How many hash slots a Redis Cluster splits its keys into. */
export const CLUSTER_SLOTS = 16_384;

/** CRC16 (XMODEM: polynomial 0x1021, initial value 0), one entry per byte value. */
const CRC16_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) {
    crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  }
  return crc & 0xffff;
});

/**
 * The hash slot of `key` in a Redis Cluster: CRC16 of the key's UTF-8 bytes modulo 16384, or of
 * its hash tag alone (the text between the first `{` and the next `}`, when not empty). Sluice's
 * keys carry the identifier as their tag (docs/algorithms.md, keys), so every key of one
 * identifier is in one slot.
 */
export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(key) % CLUSTER_SLOTS;
}

function crc16(text: string): number {
  let crc = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Keys are ASCII but for an identifier's own characters; those take the byte path.
    if (code >= 0x80) return crc16Bytes(Buffer.from(text, 'utf8'));
    crc = ((crc << 8) & 0xffff) ^ (CRC16_TABLE[((crc >> 8) ^ code) & 0xff] as number);
  }
  return crc;
}

function crc16Bytes(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc = ((crc << 8) & 0xffff) ^ (CRC16_TABLE[((crc >> 8) ^ byte) & 0xff] as number);
  }
  return crc;
}
