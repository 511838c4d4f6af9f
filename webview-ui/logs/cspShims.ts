// xterm.js styles its DOM in two ways our CSP (style-src with a nonce, no 'unsafe-inline')
// blocks, each silently: it creates <style> elements (layout, theme), and its DOM renderer sets
// `style` attributes with setAttribute for 24-bit colours. These shims route both through
// allowed paths. They only touch this page's document, which is the webview's own.

/** Stamps every <style> the page creates with the nonce the host put in the CSP. */
export function stampStyleNonces(doc: Document, nonce: string | undefined): void {
  if (!nonce) return;
  const create = doc.createElement.bind(doc) as (tag: string, options?: ElementCreationOptions) => HTMLElement;
  doc.createElement = ((tag: string, options?: ElementCreationOptions) => {
    const el = create(tag, options);
    if (tag.toLowerCase() === 'style') el.nonce = nonce;
    return el;
  }) as typeof doc.createElement;
}

/** Turns setAttribute('style', …) into a CSSOM write (`style.cssText`), which CSP allows. */
export function styleAttributesViaCssom(win: Window & typeof globalThis): void {
  const proto = win.Element.prototype;
  const setAttribute = proto.setAttribute;
  proto.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === 'style' && 'style' in this) {
      (this as HTMLElement).style.cssText = value;
      return;
    }
    setAttribute.call(this, name, value);
  };
}
