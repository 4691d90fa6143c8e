// The app's router: the URL fragment names the screen, so every screen has a
// link (and a seat's link carries its token, which never reaches a server).

import "./style.css";
import { h } from "./dom";
import { SESSION_CHANGED, signedIn } from "./player/session";
import { EDITOR_VARIANTS, editorScreen } from "./screens/editor";
import { gameScreen } from "./screens/game";
import { joinScreen } from "./screens/join";
import { newGameScreen } from "./screens/new-game";
import { playerScreen } from "./screens/player";
import { signInScreen } from "./screens/sign-in";
import type { Screen } from "./screens/screen";
import type { SideName } from "./seats";
import { variantByKey } from "./variants";

const app = document.getElementById("app") as HTMLElement;
const sessionBar = document.getElementById("session") as HTMLElement;
let current: Screen | undefined;

function route(hash: string): Screen {
  const [path, query = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts[0] === "game" && parts[1]) {
    const side = parts[2] as SideName | undefined;
    const seat = (side === "white" || side === "black") && parts[3] ? { side, token: parts[3] } : undefined;
    return gameScreen(parts[1], seat);
  }
  if (parts[0] === "join" && parts[1]) return joinScreen(parts[1]);
  if (parts[0] === "player") {
    const token = params.get("token");
    if (token) return signInScreen(token);
    const session = signedIn();
    return session ? playerScreen(session) : signInScreen();
  }
  if (parts[0] === "editor") return editorScreen(EDITOR_VARIANTS.find((v) => v.key === parts[1]) ?? EDITOR_VARIANTS[0]);
  return newGameScreen({
    variant: variantByKey(params.get("variant"))?.key,
    positionId: params.get("position") ?? undefined,
  });
}

function show(): void {
  current?.dispose();
  current = route(location.hash);
  app.replaceChildren(current.element);
}

/** Who is signed in, in the header. */
function showSession(): void {
  const session = signedIn();
  sessionBar.replaceChildren(
    session ? h("span", {}, "Signed in as ", h("a", { href: "#/player" }, session.username)) : h("a", { href: "#/player" }, "Sign in"),
  );
}

window.addEventListener("hashchange", show);
// Signing in or out shows the screen again as the new player (or none).
window.addEventListener(SESSION_CHANGED, () => {
  showSession();
  show();
});
showSession();
show();
