// An agent runtime that asks the governance service before it acts: guard() evaluates the
// action, waits for a reviewer when the policy asks for one, runs the action only once it is
// allowed, records the outcome, and the trace's hash chain is then checked offline.
//
//   AGOV_URL=http://127.0.0.1:4000 AGOV_API_KEY=ai_… AGOV_AGENT_ID=<uuid> node examples/agent-runtime/index.mjs [resource_scope]
import { createClient, GuardError, verifyTraceExport } from '@agov/sdk';

const governance = createClient({ baseUrl: process.env.AGOV_URL ?? 'http://127.0.0.1:4000', apiKey: required('AGOV_API_KEY') });

// The payout of the README's quick start: a rule there asks a person to approve each one.
const action = {
  agent_id: required('AGOV_AGENT_ID'),
  operation: 'write',
  target_integration: 'stripe',
  resource_scope: process.argv[2] ?? 'payouts/po-1043',
  data_classification: 'confidential',
  context: { amount: 980, currency: 'EUR', supplier: 'Initech' },
};

/** The agent's real work; here it pretends to send the payout. */
async function sendPayout() {
  return { payout: action.resource_scope, status: 'paid' };
}

let traceId;
try {
  const result = await governance.guard(action, sendPayout, {
    onEvaluated: (evaluation) => {
      traceId = evaluation.trace_id;
      console.log(`decision: ${evaluation.decision} (trace ${evaluation.trace_id})`);
      if (evaluation.decision === 'approval_required')
        console.log(`waiting for a reviewer to decide approval ${evaluation.approval_request_id}`);
    },
  });
  console.log(`action ran: ${JSON.stringify(result)}`);
  const trace = await governance.getTrace(traceId);
  const chain = await verifyTraceExport(trace);
  console.log(`trace ${traceId}: ${trace.final_outcome}, ${chain.eventCount} events, hash chain ${chain.valid ? 'intact' : 'BROKEN'}`);
} catch (error) {
  if (!(error instanceof GuardError)) throw error;
  console.log(`not done: ${error.name}: ${error.reason} (trace ${error.traceId})`);
  process.exitCode = 1;
}

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}
