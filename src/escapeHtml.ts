/** Text made safe for HTML element content and quoted attribute values (&, <, >, ", '). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
