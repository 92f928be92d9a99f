import { type SealedSecret, SecretKeyError, type WebhookSecretCipher } from './secret-cipher';

/** The secret columns of a `webhooks` row. */
export interface StoredSecret {
  partnerId: string;
  legacySecret: string;
  secretKeyId: string | null;
  secretIv: Uint8Array | null;
  secretTag: Uint8Array | null;
  secretCiphertext: Uint8Array | null;
}

/** The columns a fresh secret is written to: sealed, and the clear column empty. */
/** Where stored secrets are read and replaced (WebhooksRepository). */
export interface SecretStore {
  secretsToUpgrade(currentKeyId: string): Promise<StoredSecret[]>;
  replaceSecretIfUnchanged(row: StoredSecret, sealed: ReturnType<typeof sealedColumns>): Promise<boolean>;
}

export function sealedColumns(cipher: WebhookSecretCipher, partnerId: string, secret: string) {
  const s = cipher.seal(partnerId, secret);
  return { legacySecret: '', secretKeyId: s.keyId, secretIv: bytes(s.iv), secretTag: bytes(s.tag), secretCiphertext: bytes(s.ciphertext) };
}

/**
 * The secret a delivery is signed with. A clear secret wins: only a version from before encryption
 * writes one (a replica still running it during a rolling update writes the clear column and leaves
 * the old sealed one behind), and the next upgrade pass encrypts it.
 */
export function openSecret(cipher: WebhookSecretCipher, row: StoredSecret): string {
  if (row.legacySecret !== '') return row.legacySecret;
  const sealed = sealedOf(row);
  if (!sealed) throw new SecretKeyError('the webhook has no secret stored');
  return cipher.open(row.partnerId, sealed);
}

export interface UpgradeResult {
  /** Clear secrets now encrypted. */
  encrypted: number;
  /** Secrets moved from an older key to the current one. */
  rekeyed: number;
  /** Secrets under a key this service does not have (left as they are). */
  unreadable: { partnerId: string; keyId: string }[];
}

/**
 * Encrypts every clear secret and re-encrypts every one under an older key, each row by a
 * conditional UPDATE (only if it still holds what was read), so two replicas running this at once,
 * or a PUT in between, never lose a secret nor encrypt one twice over. Idempotent: with nothing
 * left to do it reads no row.
 */
export async function upgradeStoredSecrets(repo: SecretStore, cipher: WebhookSecretCipher): Promise<UpgradeResult> {
  const rows = await repo.secretsToUpgrade(cipher.keyId);
  const result: UpgradeResult = { encrypted: 0, rekeyed: 0, unreadable: [] };
  for (const row of rows) {
    let secret: string;
    try {
      secret = openSecret(cipher, row);
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      result.unreadable.push({ partnerId: row.partnerId, keyId: row.secretKeyId ?? '' });
      continue;
    }
    if (!(await repo.replaceSecretIfUnchanged(row, sealedColumns(cipher, row.partnerId, secret)))) continue; // replaced or upgraded meanwhile
    if (row.legacySecret !== '') result.encrypted++;
    else result.rekeyed++;
  }
  return result;
}

function sealedOf(row: StoredSecret): SealedSecret | undefined {
  if (!row.secretKeyId || !row.secretIv || !row.secretTag || !row.secretCiphertext) return undefined;
  return { keyId: row.secretKeyId, iv: row.secretIv, tag: row.secretTag, ciphertext: row.secretCiphertext };
}

/** Prisma 7 takes and returns `Uint8Array<ArrayBuffer>` for Bytes columns. */
function bytes(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(b);
}
