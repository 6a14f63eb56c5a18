// The layering of src/ (docs/architecture.md): interfaces → domain → configuration → ports →
// plumbing, never back.
// `npm run check:layers` runs it; CI fails on any violation.
const PLUMBING = "^src/platform/";
const CONFIGURATION = "^src/config/";
const INTERFACES = "^src/(pages|cli|openapi|server)/|^src/.+/routes/|^src/main\\.ts$";
const DOMAIN = "^src/(payments|payment-links|webhooks|merchants|accounts|privacy)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A module that reaches itself through its imports.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-folder-cycles",
      severity: "error",
      comment: "Folders under src/ import each other one way only.",
      scope: "folder",
      from: { path: "^src/[^/]+/" },
      to: { circular: true },
    },
    {
      name: "plumbing-stays-below",
      severity: "error",
      comment: "Shared plumbing knows no domain module, no interface, no setting and no processor.",
      from: { path: PLUMBING },
      to: { path: `${DOMAIN}|${INTERFACES}|${CONFIGURATION}|^src/(processor|sandbox)/` },
    },
    {
      name: "configuration-reads-the-catalog-only",
      severity: "error",
      comment:
        "The settings are read once, with the processor catalog naming each processor's own; the configuration knows no domain module, interface or emulator.",
      from: { path: CONFIGURATION },
      to: { path: `${DOMAIN}|${INTERFACES}|^src/sandbox/` },
    },
    {
      name: "domain-knows-no-interface",
      severity: "error",
      comment: "The domain is called by routes and pages, never the other way.",
      from: { path: DOMAIN, pathNot: "^src/.+/routes/" },
      to: { path: INTERFACES },
    },
    {
      name: "domain-throws-domain-errors",
      severity: "error",
      comment:
        "The domain knows nothing of HTTP: it throws DomainError (src/platform/errors/), and only the HTTP layer maps it " +
        "to a status. Route schemas (routes/, schemas.ts) are the HTTP layer's.",
      from: { path: DOMAIN, pathNot: "^src/.+/(routes/|schemas\\.ts$)" },
      to: { path: "^src/platform/http/" },
    },
    {
      name: "domain-knows-no-http",
      severity: "error",
      comment:
        "The domain imports neither Fastify nor its plugins: it logs through the plumbing's Logger " +
        "(src/platform/telemetry/logger.ts) and takes what a request carried as plain values. Routes are the HTTP layer's.",
      from: { path: DOMAIN, pathNot: "^src/.+/routes/" },
      to: { path: "node_modules/(fastify|@fastify/)" },
    },
    {
      name: "pages-share-only-the-kit",
      severity: "error",
      comment:
        "The dashboard, the console, the account and the customer pages share what they have in common through the kit only.",
      from: { path: "^src/pages/(dashboard|console|account|customer)/" },
      to: { path: "^src/pages/(dashboard|console|account|customer)/", pathNot: "^src/pages/$1/" },
    },
    {
      name: "processor-port-stands-alone",
      severity: "error",
      comment:
        "The processor port and its adapters know nothing of the service's modules, only the money module's currencies.",
      from: { path: "^src/processor/" },
      to: { path: "^src/", pathNot: "^src/processor/|^src/platform/format/money\\.ts$" },
    },
    {
      name: "stripe-only-in-its-adapter",
      severity: "error",
      comment: "Stripe's names stay inside its adapter: the `stripe` package is imported nowhere else.",
      from: { path: "^src/", pathNot: "^src/processor/stripe/" },
      to: { path: "node_modules/stripe/" },
    },
    {
      name: "square-only-in-its-adapter",
      severity: "error",
      comment: "Square's names stay inside its adapter: the `square` package is imported nowhere else.",
      from: { path: "^src/", pathNot: "^src/processor/square/" },
      to: { path: "node_modules/square/" },
    },
    {
      name: "sandbox-imports-nothing-of-the-service",
      severity: "error",
      comment: "The sandbox is a stand-in for an outside processor.",
      from: { path: "^src/sandbox/" },
      to: { path: "^src/", pathNot: "^src/sandbox/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6"],
  },
};
