/**
 * Where a paired host keeps its long-lived credential (SPEC §9): IndexedDB for
 * pages and workers, memory for tests. What IndexedDB returns is validated
 * like any other input: storage is shared with every script of the origin.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { CredentialSchema, type Credential } from '../../protocol/index.js';

/** Loads, saves and forgets the host's credential. */
export interface BrowserCredentialStore {
  /** The stored credential, or null when none (or an unreadable one) is stored. */
  load(): Promise<Credential | null>;
  save(credential: Credential): Promise<void>;
  clear(): Promise<void>;
}

/** The bridge's IndexedDB database name. */
export const CREDENTIAL_DB_NAME = 'tradescript-bridge';
const CREDENTIAL_KEY = 'host';

/** The bridge database, declared once. The value type is what we write; reads are still parsed. */
interface BridgeDb extends DBSchema {
  credentials: { key: string; value: Credential };
}

/** A stored value as a credential, or null when it is not one. */
export function parseStoredCredential(value: unknown): Credential | null {
  const parsed = CredentialSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * The IndexedDB store (database `tradescript-bridge`, store `credentials`, one
 * credential per origin). Opens the database on first use.
 */
export function createIdbCredentialStore(dbName: string = CREDENTIAL_DB_NAME): BrowserCredentialStore {
  let db: Promise<IDBPDatabase<BridgeDb>> | null = null;
  const open = (): Promise<IDBPDatabase<BridgeDb>> => {
    db ??= openDB<BridgeDb>(dbName, 1, {
      upgrade(database) {
        database.createObjectStore('credentials');
      },
    });
    return db;
  };
  return {
    async load() {
      return parseStoredCredential(await (await open()).get('credentials', CREDENTIAL_KEY));
    },
    async save(credential) {
      await (await open()).put('credentials', CredentialSchema.parse(credential), CREDENTIAL_KEY);
    },
    async clear() {
      await (await open()).delete('credentials', CREDENTIAL_KEY);
    },
  };
}

/** An in-memory store (tests, and hosts that must not persist). */
export function createMemoryCredentialStore(initial: Credential | null = null): BrowserCredentialStore {
  let stored = initial;
  return {
    load: async () => stored,
    save: async (credential) => {
      stored = CredentialSchema.parse(credential);
    },
    clear: async () => {
      stored = null;
    },
  };
}
