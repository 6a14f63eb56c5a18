import type { SecretBox } from "../platform/crypto/secret-box.ts";

/** Distinct sealed secrets kept open in memory: one or two per active group. */
const REVEALED_CACHE_SIZE = 1000;

/** The groups' signing secrets a dispatcher has opened. */
export class OpenedSecrets {
  private readonly revealed = new Map<string, string>();

  constructor(private readonly box: SecretBox) {}

  /**
   * A group's secret, opened once rather than once per delivery. Keyed by the sealed text, which a
   * rotation or a reseal changes, so a cached value is never stale; bounded by a reset when full.
   */
  open(stored: string): string {
    let plain = this.revealed.get(stored);
    if (plain === undefined) {
      if (this.revealed.size >= REVEALED_CACHE_SIZE) this.revealed.clear();
      plain = this.box.reveal(stored);
      this.revealed.set(stored, plain);
    }
    return plain;
  }
}
