// The fields a challenge and a seek share: the game, its clock, rated or
// casual, and the player's colour.

import { ChallengeColor, Variant } from "../api";
import { variantByKey, variantRadios } from "../variants";
import { h, radios } from "../dom";
import { presetTimeControl, timeControlSelect } from "../time-controls";

export interface GameTerms {
  variant: Variant;
  timeControl?: { initialMs: bigint; incrementMs: bigint };
  rated: boolean;
  color: ChallengeColor;
}

/** The fields, named `prefix-...`, and what they say once filled in. The
 * pool needs a clock (`clockOnly`); a rated game needs one too. */
export function gameTermsFields(prefix: string, clockOnly: boolean): { fields: HTMLElement[]; read: (form: HTMLFormElement) => GameTerms } {
  const time = timeControlSelect(`${prefix}-time`, clockOnly ? "clocks" : "presets", "5+0");
  const rated = h("input", { type: "checkbox", name: `${prefix}-rated` });
  const fields = [
    h("fieldset", {}, h("legend", {}, "Game"), ...variantRadios(`${prefix}-variant`, "chess")),
    h("fieldset", {}, h("legend", {}, "Time control"), h("label", {}, "Clock ", time)),
    h("fieldset", {}, h("legend", {}, "You play"), ...radios(`${prefix}-colour`, [["white", "White / Red"], ["black", "Black"], ["random", "Either"]], "random")),
    h("label", { class: "choice" }, rated, " Rated"),
  ];
  const read = (form: HTMLFormElement): GameTerms => {
    const value = (name: string) => (form.elements.namedItem(`${prefix}-${name}`) as RadioNodeList).value;
    const colour = value("colour");
    return {
      variant: variantByKey(value("variant"))?.variant ?? Variant.CHESS,
      timeControl: presetTimeControl(time.value),
      rated: rated.checked,
      color: colour === "white" ? ChallengeColor.WHITE : colour === "black" ? ChallengeColor.BLACK : ChallengeColor.UNSPECIFIED,
    };
  };
  return { fields, read };
}
