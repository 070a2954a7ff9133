/**
 * The part of jsdiff (npm `diff` 7, https://github.com/kpdecker/jsdiff; BSD-3-Clause) that
 * myers.ts uses. Version 7 ships no type declarations (8 does).
 */
declare module 'diff' {
  /** One run of the edit script: `count` items kept (neither flag), added (in the new array only) or removed (in the old only). */
  export interface ArrayChange {
    count?: number;
    added?: boolean;
    removed?: boolean;
  }
  /** Myers' O(ND) difference of two arrays (items compared with `===`); undefined when more than `maxEditLength` edits are needed. */
  export function diffArrays(oldArr: readonly unknown[], newArr: readonly unknown[], options?: { maxEditLength?: number; timeout?: number }): ArrayChange[] | undefined;
}
