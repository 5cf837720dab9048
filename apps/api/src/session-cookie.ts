import type { FastifyReply } from 'fastify';
import { SESSION_COOKIE } from './plugins/auth.js';

export function setSessionCookie(reply: FastifyReply, session: { token: string; expiresAt: Date }, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, session.token, { httpOnly: true, sameSite: 'lax', secure, path: '/', expires: session.expiresAt });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}
