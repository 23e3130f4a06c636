// A LIST answer whose items are decoded only when first read. Node LISTs are the costly decode of a pass (JSON.parse
// and leanNode of 500 nodes a page); a response processor that could read the continue token from the head of the
// answer (list-head.ts) returns the list this way, so that the client asks the API server for the next page before
// the event loop is held by this page's decode. Still a plain list to whoever reads `items`.

const DEFERRED = Symbol('kmaint.deferredItems');

type State<I> = { decode: () => I } | { items: I } | { error: unknown };

/**
 * `head` with an `items` property that runs `decode` on its first read and answers what it answered ever after (or
 * throws what it threw). `decode`, and whatever text it holds, is let go once it has run.
 */
export function withDeferredItems<L extends { items: unknown }>(head: Omit<L, 'items'>, decode: () => L['items']): L {
  let state: State<L['items']> = { decode };
  const list = { ...head } as L;
  Object.defineProperty(list, 'items', {
    enumerable: true,
    get(): L['items'] {
      if ('decode' in state) {
        const run = state.decode;
        try {
          state = { items: run() };
        } catch (error) {
          state = { error };
        }
      }
      if ('error' in state) throw state.error;
      return state.items;
    },
  });
  Object.defineProperty(list, DEFERRED, { value: true });
  return list;
}

/** Whether `list` came from withDeferredItems: reading its `items` may decode them now. */
export function hasDeferredItems(list: object): boolean {
  return DEFERRED in list;
}
