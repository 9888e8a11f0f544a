import { z } from 'zod';
import { text } from '../common/zod-body.pipe.js';

export const NewPostSchema = z.object({ title: text(1, 200), body: text(1, 10_000) });
export type NewPost = z.output<typeof NewPostSchema>;

export const NewReplySchema = z.object({ body: text(1, 2000) });
export type NewReply = z.output<typeof NewReplySchema>;
