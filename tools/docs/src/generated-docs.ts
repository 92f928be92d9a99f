import { HTTP_OPERATIONS } from '@xchain/contracts';
import { renderApiDoc } from './api-doc';
import { readServiceEnvs, renderConfigDoc, undescribed } from './config-doc';

/** The generated documents: path under the repository root and how to produce its text now. */
export const GENERATED_DOCS: readonly { path: string; render: (root: string) => string }[] = [
  { path: 'docs/api.md', render: () => renderApiDoc(HTTP_OPERATIONS) },
  {
    path: 'docs/configuration.md',
    render: (root) => {
      const envs = readServiceEnvs(root);
      const missing = undescribed(envs);
      if (missing.length > 0)
        throw new Error(
          `variables without a description (add a doc comment in the schema or an ENV_DESCRIPTIONS entry):\n  ${missing.join('\n  ')}`,
        );
      return renderConfigDoc(envs);
    },
  },
];
