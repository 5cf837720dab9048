/**
 * The domain's layering, checked by `npm run lint`. Folders are the unit: a folder may use
 * another only if that one never uses it back, however indirectly (type imports count).
 * packages/domain/src/README.md draws the layers.
 */
const DOMAIN = '^packages/domain/src/';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Two folders of the domain use each other, directly or through others: move what both need below both.',
      severity: 'error',
      scope: 'folder',
      from: { path: DOMAIN },
      to: { circular: true },
    },
    {
      name: 'support-is-a-leaf',
      comment: 'support/ holds what every folder may use; it uses no other folder of the domain.',
      severity: 'error',
      from: { path: `${DOMAIN}support/` },
      to: { path: DOMAIN, pathNot: `${DOMAIN}support/` },
    },
    {
      name: 'presenters-are-a-leaf',
      comment: 'Presenters turn rows and the types they declare into the spec JSON; they use no capability.',
      severity: 'error',
      from: { path: `${DOMAIN}presenters/` },
      to: { path: DOMAIN, pathNot: `${DOMAIN}(presenters|support|access)/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
  },
};
