import { randomInt } from 'node:crypto';

/** A source of uniform 32-bit unsigned integers. */
export type Draw = () => number;

/**
 * mulberry32: a tiny seeded generator. Not for secrets; it only makes a seeded random walk
 * replay exactly, so a test stack's prices are the same on every run.
 */
export function seeded(seed: number): Draw {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** FNV-1a of the key mixed with the seed: each key gets its own stream, whatever the key order. */
export function keyedSeed(seed: number, key: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** One draw stream per key: seeded and reproducible when a seed is given, else from the OS. */
export function drawsPerKey(seed: number | undefined): (key: string) => Draw {
  if (seed === undefined) return () => () => randomInt(0, 0x1_0000_0000);
  const streams = new Map<string, Draw>();
  return (key) => {
    let draw = streams.get(key);
    if (!draw) streams.set(key, (draw = seeded(keyedSeed(seed, key))));
    return draw;
  };
}
