import { eq } from 'drizzle-orm';
import { chatMessages, type Executor } from '@agov/db';
import type { Effect } from '../outbox/effects.js';

/**
 * The effect that updates an approval's posted card in place, when there is one. Called in
 * the transaction that decides or expires the request, after its UPDATE: that UPDATE waits
 * for a card being recorded at the same moment (see `recordPostedCard`), so this read sees it.
 */
export async function cardUpdatesFor(executor: Executor, approvalId: string): Promise<Effect[]> {
  const [posted] = await executor.select({ ts: chatMessages.ts }).from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
  return posted ? [{ kind: 'chat_card_update', approvalId }] : [];
}
