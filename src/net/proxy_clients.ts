import { openProxyClient, type ProxyClient } from "./client.ts";
import { parseProxy } from "./proxy.ts";

/**
 * One HTTP client per distinct proxy value, keyed by that value. `update` opens the clients a
 * new set of values needs and hands back the closing of those no longer named, for the caller
 * to run once no run that started with the old settings is still using them.
 */
export class ProxyClients {
  readonly #clients = new Map<string, ProxyClient>();

  get(value: string | null): Deno.HttpClient | undefined {
    return value === null ? undefined : this.#clients.get(value)?.client;
  }

  /** Opens what `values` adds; on a failure, opens nothing (the clients in use stay). */
  async update(values: Iterable<string | null>): Promise<() => Promise<void>> {
    const wanted = new Set([...values].filter((v): v is string => v !== null));
    const opened = new Map<string, ProxyClient>();
    try {
      for (const value of wanted) {
        // Values were checked by the config loader; parseProxy throws ProxyError otherwise.
        if (!this.#clients.has(value)) opened.set(value, openProxyClient(parseProxy(value)));
      }
    } catch (error) {
      for (const c of opened.values()) await c.close();
      throw error;
    }
    for (const [value, client] of opened) this.#clients.set(value, client);
    const dropped: ProxyClient[] = [];
    for (const [value, client] of this.#clients) {
      if (!wanted.has(value)) {
        dropped.push(client);
        this.#clients.delete(value);
      }
    }
    return async () => {
      for (const c of dropped) await c.close();
    };
  }

  async close(): Promise<void> {
    const all = [...this.#clients.values()];
    this.#clients.clear();
    for (const c of all) await c.close();
  }
}
