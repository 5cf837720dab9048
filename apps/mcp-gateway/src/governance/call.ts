import { createHash } from 'node:crypto';
import {
  ActionDenied,
  ApprovalExpired,
  ApprovalRejected,
  ApprovalTimeout,
  type Evaluation,
  type GovernanceClient,
  GovernanceError,
} from '@agov/sdk';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { type Catalogue, splitName } from '../downstream/catalogue.js';
import type { GatewayMetrics } from '../metrics.js';
import { mapCall, UnmappableCall } from './action.js';
import { CallProgress } from './progress.js';

export interface Governance {
  readonly client: GovernanceClient;
  readonly agentId: string;
  readonly approvalWaitMs: number;
  /** Where people open an approval: `<PUBLIC_URL>/approvals/<id>`. */
  readonly publicUrl: string;
  readonly catalogue: Catalogue;
  readonly metrics: GatewayMetrics;
  readonly log: Logger;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The tool answered `isError`: its result goes back unchanged, and the trace records a failure. */
class ToolReportedError extends Error {
  constructor(readonly result: CallToolResult) {
    super(textOf(result).slice(0, ERROR_TEXT_LIMIT) || 'the tool reported an error');
  }
}

/** How much of a tool's own error message the trace keeps. */
const ERROR_TEXT_LIMIT = 500;

/**
 * One `tools/call`, governed: evaluated as its mapping says; forwarded only when allowed or
 * approved; its outcome recorded on the trace. Every refusal is a tool result with `isError`
 * the model can read, naming the decision and the trace; the governance API out of reach
 * fails the call closed unless its tool is mapped `fail_open`.
 */
export async function governedCall(governance: Governance, request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
  const started = performance.now();
  const { name } = request.params;
  const target = splitName(name);
  const server = target && governance.catalogue.downstreams.get(target.server);
  if (!target || !server) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const args = request.params.arguments ?? {};
  if (await governance.catalogue.runsOnlyAsTask(server, target.name)) {
    governance.metrics.called('refused');
    return refusal(`Refused without evaluation: ${name} runs only as a task, which the gateway does not serve. The call was not made.`);
  }

  let mapped: ReturnType<typeof mapCall>;
  try {
    mapped = mapCall(server.config, governance.agentId, target.name, args);
  } catch (error) {
    if (!(error instanceof UnmappableCall)) throw error;
    governance.metrics.called('refused');
    return refusal(`Refused without evaluation: ${error.message}. The call was not made.`);
  }

  const progress = new CallProgress(request.params._meta?.progressToken, extra.sendNotification);
  let evaluation: Evaluation | null = null;
  let forwarded = false;
  let downstreamMs = 0;
  const forward = async () => {
    forwarded = true;
    progress.stopWaiting();
    const client = await server.client();
    const sent = performance.now();
    try {
      const result = (await client.callTool({ name: target.name, arguments: args }, undefined, {
        signal: extra.signal,
        timeout: server.config.callTimeoutMs,
        resetTimeoutOnProgress: true,
        ...(progress.wanted && { onprogress: progress.relay }),
      })) as CallToolResult;
      if (result.isError) throw new ToolReportedError(result);
      return result;
    } finally {
      downstreamMs = performance.now() - sent;
    }
  };

  try {
    const result = await governance.client.guard(mapped.action, forward, {
      signal: extra.signal,
      timeoutMs: governance.approvalWaitMs,
      onEvaluated: (evaluated) => {
        evaluation = evaluated;
        if (evaluated.decision === 'approval_required') {
          progress.waitingForApproval(approvalLink(governance, evaluated.approval_request_id!), governance.approvalWaitMs);
        }
      },
      summarize: (result) => outcomeMetadata(target.name, result),
      onOutcomeError: (error) =>
        governance.log.error({ err: error, tool: name }, 'the outcome of a governed tool call could not be recorded'),
    });
    return result;
  } catch (error) {
    if (error instanceof ToolReportedError) return error.result;
    if (extra.signal.aborted) throw error;
    const decided = evaluation as Evaluation | null;
    if (decided === null) return await unevaluated(governance, error, { name, failOpen: mapped.failOpen, forward });
    return refusalOf(governance, error, decided, { forwarded, callTimeoutMs: server.config.callTimeoutMs });
  } finally {
    progress.stopWaiting();
    const decision = (evaluation as Evaluation | null)?.decision;
    if (decision)
      governance.metrics.called(decision, decision === 'allow' ? (performance.now() - started - downstreamMs) / 1000 : undefined);
  }
}

/** Why an evaluated call did not succeed: refused by the policy or a reviewer, the API lost while it waited, or the tool failed. */
function refusalOf(
  governance: Governance,
  error: unknown,
  evaluation: Evaluation,
  call: { forwarded: boolean; callTimeoutMs: number },
): CallToolResult {
  const trace = `(trace ${evaluation.trace_id})`;
  const link = evaluation.approval_request_id ? approvalLink(governance, evaluation.approval_request_id) : null;
  if (error instanceof ActionDenied) return refusal(`Denied by policy: ${error.reason} ${trace}`);
  if (error instanceof ApprovalRejected) return refusal(`Approval rejected by a reviewer: ${error.reason}. ${link} ${trace}`);
  if (error instanceof ApprovalExpired) return refusal(`Approval expired before anyone decided; the call was not made. ${link} ${trace}`);
  if (error instanceof ApprovalTimeout) {
    const seconds = Math.round(governance.approvalWaitMs / 1000);
    return refusal(`Approval timed out: no decision within ${seconds} s, so the call was not made. ${link} ${trace}`);
  }
  if (!call.forwarded) {
    governance.log.error(
      { err: error, trace_id: evaluation.trace_id },
      'governance API unavailable while a tool call waited for its approval: refused',
    );
    return refusal(
      `Governance unavailable: the approval's status could not be read (${messageOf(error)}), so the call was not made. ${link} ${trace}`,
    );
  }
  // The call was forwarded and failed there; a server's own protocol error reaches the client as it was.
  if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout) throw error;
  const what =
    error instanceof McpError && error.code === ErrorCode.RequestTimeout
      ? `no answer within ${call.callTimeoutMs / 1000} s`
      : messageOf(error);
  return refusal(`The tool failed: ${what} ${trace}`);
}

/** The evaluation itself failed: the service could not be reached, or refused the request. */
async function unevaluated(
  governance: Governance,
  error: unknown,
  call: { name: string; failOpen: boolean; forward: () => Promise<CallToolResult> },
): Promise<CallToolResult> {
  const reachable = error instanceof GovernanceError && error.status < 500 && error.status !== 429;
  if (reachable) {
    governance.metrics.called('refused');
    governance.log.error({ err: error, tool: call.name }, 'the governance API refused to evaluate a tool call; the call was not made');
    return refusal(
      `Refused: the governance API would not evaluate the call (${error.status} ${error.error}: ${error.message}). The call was not made.`,
    );
  }
  if (!call.failOpen) {
    governance.metrics.called('unavailable');
    governance.log.error({ err: error, tool: call.name }, 'governance API unavailable: tool call refused (fail closed)');
    return refusal(`Governance unavailable: the call could not be evaluated (${messageOf(error)}), so it was not made.`);
  }
  governance.metrics.called('fail_open');
  governance.log.error(
    { err: error, tool: call.name },
    'governance API unavailable: tool call forwarded UNEVALUATED (fail_open); no trace records it',
  );
  try {
    return await call.forward();
  } catch (failure) {
    if (failure instanceof ToolReportedError) return failure.result;
    throw failure;
  }
}

const approvalLink = (governance: Governance, approvalId: string) => `${governance.publicUrl}/approvals/${approvalId}`;

const refusal = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * What the trace records of a successful call: the tool, the kinds of content it returned and
 * a digest of the whole result, never the content itself, which may be confidential. Whoever
 * holds the result can prove it is the one recorded.
 */
function outcomeMetadata(tool: string, result: CallToolResult): Record<string, unknown> {
  return {
    tool,
    content_types: result.content.map((item) => item.type),
    result_sha256: createHash('sha256').update(JSON.stringify(result)).digest('hex'),
  };
}

const textOf = (result: CallToolResult) => result.content.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
