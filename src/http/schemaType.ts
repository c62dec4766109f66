// FromSchema<S>: the TypeScript type of a value that passed the JSON Schema S (the subset the
// route schemas use), so that a handler's input is typed by the schema that validated it.

/** `Defaults` true: ajv ran with useDefaults, so a property with a default is always present. */
export type FromSchema<S, Defaults extends boolean = false> = S extends { readonly oneOf: readonly (infer U)[] }
  ? FromSchema<U, Defaults>
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: readonly (infer T)[] }
      ? OfType<T, S, Defaults>
      : S extends { readonly type: infer T }
        ? OfType<T, S, Defaults>
        : unknown;

type OfType<T, S, D extends boolean> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromSchema<I, D>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S, D>
            : unknown;

type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;
type DefaultedKeys<P, D extends boolean> = D extends true ? { [K in keyof P]: P[K] extends { readonly default: unknown } ? K : never }[keyof P] : never;

type ObjectOf<S, D extends boolean> = S extends { readonly properties: infer P }
  ? Flatten<
      { -readonly [K in keyof P as K extends RequiredKeys<S> | DefaultedKeys<P, D> ? K : never]: FromSchema<P[K], D> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> | DefaultedKeys<P, D> ? never : K]?: FromSchema<P[K], D>;
      }
    >
  : Record<string, unknown>;

type Flatten<T> = { [K in keyof T]: T[K] };
