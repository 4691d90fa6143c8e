// A side's clock, counting down from the server's `deadline` while it runs.

import { h } from "../dom";
import { Side, timestampMs, type Clock } from "../api";

export class ClockView {
  readonly element = h("span", { class: "clock" });
  private clock: Clock | undefined;
  private flagged = false;
  private timer: number | undefined;

  constructor(private readonly side: Side) {
    this.element.dataset.side = side === Side.WHITE ? "white" : "black";
  }

  /** Shows a game's clock (undefined: untimed, hidden); `live` is false once
   * the game ended; `flagged` when this side's time ran out (the final clock
   * still holds its time as of the start of its turn). */
  update(clock: Clock | undefined, live: boolean, flagged: boolean): void {
    this.clock = clock;
    this.flagged = flagged;
    this.element.hidden = clock === undefined;
    window.clearInterval(this.timer);
    this.timer = undefined;
    if (clock && live && this.runs()) this.timer = window.setInterval(() => this.draw(), 100);
    this.draw();
  }

  dispose(): void {
    window.clearInterval(this.timer);
  }

  private runs(): boolean {
    return this.clock?.running === this.side && this.clock.deadline !== undefined;
  }

  /** Milliseconds left now. */
  private left(): number {
    const clock = this.clock;
    if (!clock || this.flagged) return 0;
    if (this.runs() && clock.deadline) return Math.max(0, timestampMs(clock.deadline) - Date.now());
    return Number(this.side === Side.WHITE ? clock.whiteMs : clock.blackMs);
  }

  private draw(): void {
    if (!this.clock) return;
    const ms = this.left();
    this.element.textContent = formatClock(ms);
    this.element.classList.toggle("running", this.runs() && this.timer !== undefined);
    this.element.classList.toggle("low", ms < 10_000 && (this.runs() || this.flagged));
    if (ms === 0) window.clearInterval(this.timer);
  }
}

/** "4:05", or "0:07.3" under ten seconds. */
export function formatClock(ms: number): string {
  const total = Math.max(0, ms);
  const minutes = Math.floor(total / 60_000);
  const seconds = Math.floor((total % 60_000) / 1000);
  const base = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return total < 10_000 ? `${base}.${Math.floor((total % 1000) / 100)}` : base;
}
