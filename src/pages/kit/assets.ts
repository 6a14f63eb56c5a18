// The pages' one stylesheet and one small script, served by the service itself (no CDN). The
// script only improves what the server sent: times in the viewer's zone. Pages work without it.

export const STYLESHEET = `
:root{--ink:#1b1f24;--muted:#5b6470;--line:#d9dee4;--bg:#f6f7f9;--card:#fff;--accent:#3454d1;--bad:#b3261e;--good:#1e7d3a;--warn:#9a6700}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:9}
header.top{background:#111827;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center}
header.top nav{display:flex;flex-wrap:wrap;gap:.2rem 1.1rem}
header.top a{color:#e5e7eb;text-decoration:none;padding:.2rem 0}
header.top a[aria-current=page]{color:#fff;border-bottom:2px solid #fff}
header.top .brand{font-weight:700;color:#fff;margin-right:.5rem}
header.top .who{margin-left:auto;color:#cbd5e1;font-size:.9rem;display:flex;gap:.6rem;align-items:center}
header.top form{margin:0}
header.top button{background:none;border:1px solid #6b7280;color:#fff;padding:.15rem .6rem;border-radius:4px;cursor:pointer;font:inherit}
main{max-width:72rem;margin:0 auto;padding:1.2rem 1rem 3rem}
main.narrow{max-width:26rem}
h1{font-size:1.5rem;margin:.4rem 0 1rem}h2{font-size:1.15rem;margin:1.6rem 0 .6rem}h3{font-size:1rem;margin:0 0 .4rem}
.card>h2:first-child,.card>h3:first-child{margin-top:0}.card>form:last-child{margin-bottom:0}section.event form{margin-top:.6rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr))}
.stat .value{font-size:1.6rem;font-weight:600}.stat .label{color:var(--muted);font-size:.9rem}
.table-wrap{overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.5rem .7rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600;background:#fafbfc}tr:last-child td{border-bottom:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88em;word-break:break-all}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;word-break:break-word}
label.check{display:inline-flex;gap:.3rem;align-items:center;margin-right:.9rem;font-weight:400}ul.plain{list-style:none;margin:0;padding:0}form.inline{display:inline}form.row{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end}
label{display:block;font-weight:600;font-size:.9rem;margin:.6rem 0 .25rem}
form.row label{margin:0 0 .25rem}
input,select,textarea{font:inherit;padding:.45rem .55rem;border:1px solid #9aa3ad;border-radius:5px;background:#fff;max-width:100%}
main.narrow input{width:100%}
button,.button{font:inherit;background:var(--accent);color:#fff;border:0;border-radius:5px;padding:.5rem .9rem;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:var(--ink);border:1px solid #9aa3ad}button.danger{background:var(--bad)}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.82rem;font-weight:600;background:#e5e7eb;white-space:nowrap}
.badge.succeeded,.badge.dispute_won,.badge.ok{background:#d7f0dd;color:var(--good)}.badge.failed,.badge.cancelled,.badge.expired,.badge.unavailable{background:#f9dedc;color:var(--bad)}
.badge.processing,.badge.pending{background:#fff1c2;color:var(--warn)}.badge.partially_refunded,.badge.refunded{background:#e0e7ff;color:#3730a3}
.badge.disputed,.badge.dispute_lost,.badge.needs_response,.badge.lost,.badge.accepted{background:#fde2c8;color:#8a3b00}
.badge.under_review{background:#fff1c2;color:var(--warn)}.badge.won{background:#d7f0dd;color:var(--good)}
tr.due-soon td{background:#fff7ed}.evidence{white-space:pre-wrap;overflow-wrap:anywhere}
.notice{padding:.7rem 1rem;border-radius:6px;margin:0 0 1rem;border:1px solid}
.notice.error{background:#fdecea;border-color:#f3b4ad;color:#7a1610}.notice.ok{background:#e8f5ec;border-color:#a9d8b6;color:#14532d}
.secret{background:#fff8e1;border:1px solid #f0d37a;padding:.7rem;border-radius:6px}
.muted{color:var(--muted)}.pager{display:flex;gap:1rem;margin:1rem 0}
svg.chart{width:100%;height:auto;display:block}svg.chart text{font:11px system-ui,sans-serif;fill:#5b6470}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.85rem;margin:.4rem 0 0;padding:0;list-style:none}
.legend svg{vertical-align:-1px}
input.copy{width:100%;max-width:32rem}iframe.preview{border:1px solid var(--line);border-radius:8px;max-width:100%;background:#fff}
svg.qr{max-width:100%;height:auto}
code.answer{display:block;max-width:40rem;max-height:6rem;overflow:auto;white-space:pre-wrap}
@media (max-width:600px){header.top .who{margin-left:0;width:100%}main{padding:1rem .6rem 2rem}dl.facts{grid-template-columns:1fr}dl.facts dt{margin-top:.4rem}
table.stack thead{display:none}table.stack tr{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:.15rem .8rem;padding:.55rem .7rem;border-bottom:1px solid var(--line)}table.stack tr:last-child{border-bottom:0}
table.stack td{border:0;padding:0;min-width:0;overflow-wrap:anywhere}table.stack td.when{grid-area:1/1}table.stack td.num{grid-area:1/2}table.stack td.who{grid-area:2/1}table.stack td.state{grid-area:2/2;text-align:right}
table.stack td.what{grid-area:3/1/4/3}table.stack td.via{grid-area:4/1/5/3;color:var(--muted);font-size:.85rem}}
`;

export const SCRIPT = `"use strict";
for (const element of document.querySelectorAll("time[datetime]")) {
  const date = new Date(element.getAttribute("datetime"));
  if (!Number.isNaN(date.getTime())) {
    // Seconds and the zone's name: two changes a minute apart must not read the same.
    element.textContent = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "long" });
  }
}
// A link to share is selectable text without script; with it, one button copies it.
for (const input of document.querySelectorAll("input.copy")) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary";
  button.textContent = "Copy";
  button.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select and copy";
    }
  });
  input.after(" ", button);
}
`;
