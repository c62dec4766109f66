// Scaffolding while the PostgreSQL store is being written: a family whose methods are not
// there yet refuses every call by name. Deleted once every family is implemented.
export function pending<T extends object>(family: string): T {
  return new Proxy({} as T, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      return () => Promise.reject(new Error(`PostgreSQL store: ${family}.${String(prop)} is not implemented yet`));
    },
  });
}
