/** The document's tags, one per operation, in the order a reader meets them. */
export const TAGS = [
  { name: 'evaluate', description: 'Ask whether an agent may perform an action.' },
  { name: 'approvals', description: 'Requests for a person to approve or deny an action, and waiting for the decision.' },
  {
    name: 'grants',
    description: 'Execution grants: signed proof of an approval that a tool verifies offline, the keys to verify them, and redeeming one.',
  },
  { name: 'traces', description: 'The record of each evaluated action: its audit events, outcome, verification and exports.' },
  { name: 'audit', description: 'The audit trail across traces, exported.' },
  { name: 'agents', description: 'The agents under governance and their lifecycle.' },
  { name: 'policies', description: 'The rules that decide, their versions, and dry runs.' },
  { name: 'webhooks', description: 'Endpoints that receive signed events, and their deliveries.' },
  { name: 'auth', description: 'Signing up, signing in and out, and who the credential is.' },
  { name: 'users', description: "The tenant's people and their roles." },
  { name: 'api-keys', description: 'Keys for agent runtimes and integrations, with scopes.' },
  { name: 'settings', description: 'E-mail notifications of approval requests, and confirming reviewer addresses.' },
  { name: 'chat', description: 'Approval cards in Slack.' },
  { name: 'billing', description: 'The subscription, through the payment provider.' },
  { name: 'health', description: 'Probes.' },
];
