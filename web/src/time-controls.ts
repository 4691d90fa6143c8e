// The time controls the forms offer, and a time control in words.

import type { TimeControl } from "./api";
import { h } from "./dom";

/** Minutes + increment seconds; "none" is untimed, "custom" asks. */
const TIME_CONTROLS: { label: string; value: string }[] = [
  { label: "No clock", value: "none" },
  { label: "1 minute", value: "1+0" },
  { label: "3 min + 2 s", value: "3+2" },
  { label: "5 minutes", value: "5+0" },
  { label: "10 minutes", value: "10+0" },
  { label: "15 min + 10 s", value: "15+10" },
  { label: "30 minutes", value: "30+0" },
  { label: "Custom…", value: "custom" },
];

/** A clock of `minutes` (fractions allowed) plus `increment` seconds a move. */
export function timeControl(minutes: number, increment: number): { initialMs: bigint; incrementMs: bigint } {
  return { initialMs: BigInt(Math.round(minutes * 60_000)), incrementMs: BigInt(Math.round(increment * 1000)) };
}

/** The time control of a "M+S" option; undefined for "none". */
export function presetTimeControl(value: string): { initialMs: bigint; incrementMs: bigint } | undefined {
  const m = /^(\d+)\+(\d+)$/.exec(value);
  return m ? timeControl(Number(m[1]), Number(m[2])) : undefined;
}

/** A select of the time controls: every one ("all"), those without asking
 * ("presets"), or the preset clocks ("clocks", for the pool, whose seeks
 * need one). */
export function timeControlSelect(name: string, choice: "all" | "presets" | "clocks", selected?: string): HTMLSelectElement {
  const choices = TIME_CONTROLS.filter(
    (tc) => choice === "all" || (tc.value !== "custom" && (choice === "presets" || presetTimeControl(tc.value))),
  );
  return h(
    "select",
    { name, "data-testid": name },
    ...choices.map((tc) => h("option", { value: tc.value, selected: tc.value === selected }, tc.label)),
  );
}

/** A time control in words: "5 min + 2 s a move", "no clock". */
export function clockText(control: TimeControl | undefined): string {
  if (!control) return "No clock";
  if (control.daysPerMove > 0) return `${control.daysPerMove} ${control.daysPerMove === 1 ? "day" : "days"} a move`;
  const seconds = (ms: bigint) => Number(ms) / 1000;
  const initial = seconds(control.initialMs);
  const base = initial >= 60 ? `${initial / 60} min` : `${initial} s`;
  if (control.incrementMs > 0n) return `${base} + ${seconds(control.incrementMs)} s a move`;
  if (control.delayMs > 0n) return `${base}, ${seconds(control.delayMs)} s delay a move`;
  return base;
}
