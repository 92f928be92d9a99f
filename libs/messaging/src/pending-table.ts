interface Entry<T> {
  token: string;
  seq: number;
  value: T;
}

/**
 * Requests that are waiting for a reply, each under a token that the table makes.
 *
 * Why not a `Map`: V8 keeps a Map's entries in a hash table. Every few deletions it copies the
 * table into a new one, and the old table keeps its entries and a pointer to the new one. Young
 * GCs treat what an old-space object points to as live, even when that object is garbage. So once
 * a table sits in old space, every later table survives until a full GC. So does every request
 * that was waiting when its table was copied. All of it gets promoted.
 *
 * A table ends up in old space when it survives two young GCs unchanged: a pause in requests while
 * other work allocates. In the gateway, a few seconds of routes that do not use the bus were
 * enough. pending-table.spec.ts shows the effect with a Map.
 *
 * An object used as a dictionary is a hash table too, which V8 copies as it grows and shrinks.
 * Here entries sit in an array of slots, and each slot is cleared when its request is answered,
 * then reused. The array is copied only when more requests wait at once than ever before.
 *
 * A token is `<slot>_<sequence>`, both in base 36, so it is unique for as long as the process
 * runs. A late reply to a reused slot finds a different token there, and nothing happens.
 */
export class PendingTable<T> {
  private readonly slots: (Entry<T> | undefined)[] = [];
  private readonly free: number[] = [];
  private seq = 0;

  /** Stores `value`; returns the token that takes it back. */
  add(value: T): string {
    const slot = this.free.pop() ?? this.slots.length;
    const seq = this.seq++;
    const token = `${slot.toString(36)}_${seq.toString(36)}`;
    this.slots[slot] = { token, seq, value };
    return token;
  }

  /** Removes and returns the entry for `token`, if it is still waiting. */
  take(token: string): T | undefined {
    const slot = parseInt(token, 36);
    if (!(slot >= 0 && slot < this.slots.length)) return undefined;
    const entry = this.slots[slot];
    if (entry?.token !== token) return undefined;
    this.slots[slot] = undefined;
    this.free.push(slot);
    return entry.value;
  }

  /** The token of the oldest waiting entry that matches, if any. */
  findOldest(matches: (value: T) => boolean): string | undefined {
    let oldest: Entry<T> | undefined;
    for (const entry of this.slots) if (entry && (!oldest || entry.seq < oldest.seq) && matches(entry.value)) oldest = entry;
    return oldest?.token;
  }

  /** The tokens of all waiting entries, oldest first. */
  tokens(): string[] {
    return this.slots
      .filter((e): e is Entry<T> => e !== undefined)
      .sort((a, b) => a.seq - b.seq)
      .map((e) => e.token);
  }
}
