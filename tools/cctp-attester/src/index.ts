export { type AttestPolicy, attestMessages } from './attest';
export { DEV_CCTP_ATTESTER_KEY, attesterSettings } from './settings';
export { type Attester, type AttesterDomain, type AttesterOptions, startAttester } from './start-attester';
