import { PGlite } from "@electric-sql/pglite";

let t = Date.now();
const a = new PGlite();
await a.query("select 1");
console.log("first", Date.now() - t);
t = Date.now();
const b = new PGlite();
await b.query("select 1");
console.log("second", Date.now() - t);
await a.query("create table x(id int)");
t = Date.now();
const dump = await a.dumpDataDir("none");
console.log("dump", Date.now() - t, dump.size);
t = Date.now();
const c = new PGlite({ loadDataDir: dump });
await c.query("select * from x");
console.log("load", Date.now() - t);
t = Date.now();
if (a.clone) {
  const d = await a.clone();
  await d.query("select * from x");
  console.log("clone", Date.now() - t);
}
