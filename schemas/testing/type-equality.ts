/** Compile-time type equality for tests: `exact<Equal<A, B>>(true)` fails to compile unless A and B are identical. */

/** True only when A and B are mutually assignable with identical readonly-ness (the usual exact-equality trick). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const exact = <T extends true>(_: T): void => undefined;

/** An interface as a plain object type (Equal compares structure; interfaces and mapped types print differently). */
export type Flat<T> = { [K in keyof T]: T[K] };
