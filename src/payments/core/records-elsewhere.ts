/**
 * Records of customers the service does not own but can reach (the built-in sandbox's): told
 * after an erasure, and after a create attempt of an erased payment was closed.
 */
export interface RecordsElsewhere {
  forgetCustomers(emails: readonly string[]): Promise<void>;
}
