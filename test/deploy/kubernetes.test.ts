// deploy/kubernetes renders with `kubectl kustomize` (base and the PgBouncer overlay) into what
// docs/deploy.md promises: api and workers by SERVICE_ROLES, probes on the health routes, a
// disruption budget, an autoscaler, non-root with a read-only root file system, secrets by reference.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { ENVIRONMENT_VARIABLES } from "../../src/config/config.ts";

const run = promisify(execFile);
const KUBECTL = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((path) => existsSync(path));
// Not a Debian package: where it is not installed the manifests are not rendered, and the run says so.
const skip = KUBECTL ? false : "kubectl is not installed: the Kubernetes manifests are not rendered";
if (skip) process.stderr.write(`skipped: ${skip}\n`);

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read as plain YAML.
type Manifest = any;

async function render(path: string): Promise<Manifest[]> {
  const { stdout } = await run(KUBECTL as string, ["kustomize", path]);
  return parseAllDocuments(stdout).map((document) => document.toJS());
}

const find = (manifests: Manifest[], kind: string, name: string): Manifest => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  assert.ok(found, `${kind} ${name}`);
  return found;
};

/** The pod templates of Deployments and Jobs. */
const pods = (manifests: Manifest[]) =>
  manifests
    .filter((manifest) => manifest.kind === "Deployment" || manifest.kind === "Job")
    .map((manifest) => ({ name: manifest.metadata.name as string, spec: manifest.spec.template.spec }));

describe("Kubernetes manifests", { skip }, () => {
  it("the base: api and workers by SERVICE_ROLES, probes, budget, autoscaler, hardened pods, secrets by reference", async () => {
    const manifests = await render("deploy/kubernetes/base");
    assert.deepEqual(manifests.map((manifest) => manifest.kind).sort(), [
      "ConfigMap",
      "Deployment",
      "Deployment",
      "HorizontalPodAutoscaler",
      "Job",
      "PodDisruptionBudget",
      "Service",
    ]);
    assert.ok(
      !manifests.some((manifest) => manifest.kind === "Secret"),
      "no secret is written in the manifests",
    );
    const roles: Record<string, string> = {};
    for (const name of ["checkout-api", "checkout-workers"]) {
      const deployment = find(manifests, "Deployment", name);
      const [container] = deployment.spec.template.spec.containers;
      roles[name] = container.env.find((entry: Manifest) => entry.name === "SERVICE_ROLES").value;
      assert.equal(container.readinessProbe.httpGet.path, "/health/ready");
      assert.equal(container.livenessProbe.httpGet.path, "/health/live");
      assert.deepEqual(
        container.envFrom.map((source: Manifest) => source.configMapRef?.name ?? source.secretRef?.name),
        ["checkout-config", "checkout-secrets"],
      );
    }
    assert.deepEqual(roles, { "checkout-api": "api", "checkout-workers": "workers" });
    for (const { name, spec } of pods(manifests)) {
      assert.equal(spec.securityContext.runAsNonRoot, true, name);
      assert.ok(spec.securityContext.runAsUser > 0, name);
      for (const container of spec.containers) {
        assert.equal(container.securityContext.readOnlyRootFilesystem, true, name);
        assert.equal(container.securityContext.allowPrivilegeEscalation, false, name);
        assert.deepEqual(container.securityContext.capabilities.drop, ["ALL"], name);
        assert.ok(container.resources.requests.memory && container.resources.limits.memory, name);
        // The service writes only to /tmp (DATA_DIR's key file is unused with SECRETS_KEY set).
        assert.ok(
          container.volumeMounts.some((mount: Manifest) => mount.mountPath === "/tmp"),
          name,
        );
      }
    }
    // Above the peak RSS measured under load (docs/performance.md: at most 200 MB).
    const apiLimit = find(manifests, "Deployment", "checkout-api").spec.template.spec.containers[0].resources
      .limits.memory as string;
    assert.ok(Number.parseInt(apiLimit, 10) >= 256, apiLimit);
    const apiLabels = find(manifests, "Deployment", "checkout-api").spec.template.metadata.labels;
    const matches = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => apiLabels[key] === value);
    assert.ok(matches(find(manifests, "Service", "checkout").spec.selector));
    assert.ok(matches(find(manifests, "PodDisruptionBudget", "checkout-api").spec.selector.matchLabels));
    assert.equal(
      find(manifests, "HorizontalPodAutoscaler", "checkout-api").spec.scaleTargetRef.name,
      "checkout-api",
    );
    assert.deepEqual(find(manifests, "Job", "checkout-migrate").spec.template.spec.containers[0].command, [
      "node",
      "bin/checkout.js",
      "migrate",
    ]);
    const settings = Object.keys(find(manifests, "ConfigMap", "checkout-config").data);
    for (const name of settings) {
      assert.ok(
        (ENVIRONMENT_VARIABLES as readonly string[]).includes(name),
        `${name} is a setting of the service`,
      );
    }
  });

  it("the PgBouncer overlay: transaction pooling, the pooler itself, migrations straight to the primary", async () => {
    const manifests = await render("deploy/kubernetes/overlays/pgbouncer");
    assert.equal(find(manifests, "ConfigMap", "checkout-config").data.DATABASE_POOL_MODE, "transaction");
    const pooler = find(manifests, "Deployment", "checkout-pgbouncer");
    assert.equal(pooler.spec.template.spec.securityContext.runAsNonRoot, true);
    assert.equal(pooler.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem, true);
    assert.equal(find(manifests, "Service", "checkout-pgbouncer").spec.ports[0].port, 6432);
    const migrate = find(manifests, "Job", "checkout-migrate").spec.template.spec.containers[0];
    const direct = migrate.env.find((entry: Manifest) => entry.name === "DATABASE_URL");
    assert.deepEqual(direct.valueFrom.secretKeyRef, { name: "checkout-secrets", key: "DATABASE_DIRECT_URL" });
    assert.ok(find(manifests, "Deployment", "checkout-api"), "the base is all there");
  });
});
