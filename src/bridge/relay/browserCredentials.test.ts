import { describe, expect, it } from 'vitest';
import { createMemoryCredentialStore, parseStoredCredential } from './browserCredentials.js';

const credential = { hostId: 'host-1', secret: 'a-long-enough-secret-01' };

describe('SPEC §9 credential storage', () => {
  it('the memory store saves, loads and clears one credential', async () => {
    const store = createMemoryCredentialStore();
    expect(await store.load()).toBeNull();
    await store.save(credential);
    expect(await store.load()).toEqual(credential);
    await store.clear();
    expect(await store.load()).toBeNull();
  });

  it('a stored value is read as a credential only when it is one (IndexedDB is a trust boundary)', () => {
    expect(parseStoredCredential(credential)).toEqual(credential);
    expect(parseStoredCredential(undefined)).toBeNull();
    expect(parseStoredCredential({ hostId: 'host-1', secret: 'short' })).toBeNull();
    expect(parseStoredCredential({ ...credential, extra: 1 })).toBeNull();
    expect(parseStoredCredential('host-1:secret')).toBeNull();
  });

  it('refuses to save something that is not a credential', async () => {
    const store = createMemoryCredentialStore();
    await expect(store.save({ hostId: '', secret: '' })).rejects.toThrow();
    expect(await store.load()).toBeNull();
  });
});
