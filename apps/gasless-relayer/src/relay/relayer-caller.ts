/** The relayer as the caller of another service's RPC (the partner-service's ledger holds). */
export const RELAYER_CALLER = { kind: 'internal', service: 'gasless-relayer' } as const;
