/**
 * The few `chrome.*` extension APIs the extension uses (Chrome 116+), typed by
 * hand because @types/chrome is not a dependency. Only what is called is
 * declared; every value these return that came from a page is parsed anyway.
 */
declare namespace chrome {
  /** A listener registry of an extension event. */
  interface ExtensionEvent<L extends (...args: never[]) => unknown> {
    addListener(listener: L): void;
    removeListener(listener: L): void;
  }

  namespace runtime {
    const id: string;
    /** Who opened a Port or sent a message. */
    interface MessageSender {
      id?: string;
      url?: string;
      origin?: string;
      frameId?: number;
      documentId?: string;
      tab?: tabs.Tab;
    }
    interface Port {
      readonly name: string;
      readonly sender?: MessageSender;
      postMessage(message: unknown): void;
      disconnect(): void;
      readonly onMessage: ExtensionEvent<(message: unknown, port: Port) => void>;
      readonly onDisconnect: ExtensionEvent<(port: Port) => void>;
    }
    function connect(connectInfo: { name: string }): Port;
    function getURL(path: string): string;
    const onConnect: ExtensionEvent<(port: Port) => void>;
    const onInstalled: ExtensionEvent<(details: { reason: string }) => void>;
    const onStartup: ExtensionEvent<() => void>;
  }

  namespace storage {
    interface StorageArea {
      get(keys: string | string[]): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
      setAccessLevel?(options: { accessLevel: 'TRUSTED_CONTEXTS' | 'TRUSTED_AND_UNTRUSTED_CONTEXTS' }): Promise<void>;
    }
    const local: StorageArea;
    const session: StorageArea;
  }

  namespace scripting {
    interface RegisteredContentScript {
      id: string;
      matches?: string[];
      js?: string[];
      runAt?: 'document_start' | 'document_end' | 'document_idle';
      allFrames?: boolean;
      persistAcrossSessions?: boolean;
    }
    function registerContentScripts(scripts: RegisteredContentScript[]): Promise<void>;
    function unregisterContentScripts(filter?: { ids?: string[] }): Promise<void>;
    function getRegisteredContentScripts(filter?: { ids?: string[] }): Promise<RegisteredContentScript[]>;
    function executeScript(injection: {
      target: { tabId: number; frameIds?: number[] };
      files: string[];
    }): Promise<unknown[]>;
  }

  namespace tabs {
    interface Tab {
      id?: number;
      windowId: number;
      active: boolean;
      url?: string;
      title?: string;
    }
    function get(tabId: number): Promise<Tab>;
    function query(query: {
      url?: string | string[];
      active?: boolean;
      currentWindow?: boolean;
      lastFocusedWindow?: boolean;
    }): Promise<Tab[]>;
    function captureVisibleTab(
      windowId: number,
      options: { format?: 'png' | 'jpeg'; quality?: number },
    ): Promise<string>;
    const onRemoved: ExtensionEvent<
      (tabId: number, removeInfo: { windowId: number; isWindowClosing: boolean }) => void
    >;
  }

  namespace windows {
    interface Window {
      id?: number;
      focused: boolean;
      state?: 'normal' | 'minimized' | 'maximized' | 'fullscreen' | 'locked-fullscreen';
    }
    function get(windowId: number): Promise<Window>;
  }

  namespace alarms {
    interface Alarm {
      name: string;
    }
    function create(name: string, info: { periodInMinutes?: number; delayInMinutes?: number }): Promise<void>;
    function get(name: string): Promise<Alarm | undefined>;
    const onAlarm: ExtensionEvent<(alarm: Alarm) => void>;
  }

  namespace permissions {
    interface Permissions {
      origins?: string[];
      permissions?: string[];
    }
    function request(permissions: Permissions): Promise<boolean>;
    function contains(permissions: Permissions): Promise<boolean>;
    function remove(permissions: Permissions): Promise<boolean>;
  }
}
