// Typed templates that escape by default: every interpolated value is text unless it is itself
// the result of `html`. There is deliberately no way to mark an arbitrary string as safe.

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

const SPECIAL = /[&<>"']/;

// Most texts on a page (ids, times, amounts, addresses) hold nothing to escape: they are returned
// as they are, without a replace's allocation.
const escapeHtml = (text: string): string =>
  SPECIAL.test(text) ? text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string) : text;

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Fragment = Html | string | number | null | undefined | false | readonly Fragment[];

const render = (value: Fragment): string => {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
};

export function html(strings: TemplateStringsArray, ...values: Fragment[]): Html {
  let text = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    text += render(values[index] as Fragment) + (strings[index + 1] ?? "");
  }
  return new Html(text);
}
