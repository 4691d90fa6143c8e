/** What the router shows: an element, and what to stop when it goes away. */
export interface Screen {
  element: HTMLElement;
  dispose(): void;
}
