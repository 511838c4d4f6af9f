// Options every prompt of a command shares. A command picked in the palette shows its prompt
// after an await (a reload of the model, an agent call); meanwhile VS Code gives the focus back
// to what held it before the palette, and a webview (a log panel) takes it late. A prompt that
// is hidden on focus-out would then vanish by itself and the command end as if dismissed; the
// user closes these with Escape instead.
export const KEEP_OPEN = { ignoreFocusOut: true } as const;
