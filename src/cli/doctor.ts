import { processEnv } from "../config/env.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { jsonEnvelope } from "./json-envelope.ts";
import { writeOut } from "./output.ts";

export default defineCommand({
  meta: {
    name: "doctor",
    usage: "doctor [--full] [--json] | doctor --template NAME",
    description: "Check config, providers, daemon, service, keychain, plugins and disk",
    details: [
      "It checks config.toml, each configured provider (one cheap request",
      "each: the key, the model, and for Ollama the context it serves), the daemon and its version, the",
      "service unit, the keychain, enabled plugins' sign-ins, the embedded catalog's signature and free disk.",
      "Probes time out after 5 s. --full also walks every enabled plugin's readiness (manifest, settings,",
      "secret, runtime, OAuth client and token), one row each. Exit 0 when nothing failed, 1 otherwise.",
      "--template FERMIX.md (or SOUL.md) prints the template this build ships, to compare with your copy.",
    ].join("\n"),
  },
  args: {
    full: { type: "boolean", description: "also check each enabled plugin's readiness in full" },
    json: { type: "boolean", description: "print the typed JSON envelope with every row" },
    template: { type: "string", valueHint: "NAME", description: "print the shipped FERMIX.md or SOUL.md template" },
  },
  async run({ args }) {
    if (typeof args.template === "string") {
      const { shippedTemplate } = await import("../agent/prompt-files.ts");
      const text = shippedTemplate(args.template);
      if (text === undefined)
        throw UsageError(`doctor: --template takes FERMIX.md or SOUL.md (got "${args.template}")`);
      await writeOut(text);
      return EXIT.ok;
    }
    const [{ runDoctor }, { defaultDoctorDeps }, { renderReport }] = await Promise.all([
      import("../doctor/run-doctor.ts"),
      import("../doctor/default-deps.ts"),
      import("../doctor/render.ts"),
    ]);
    const report = await runDoctor(defaultDoctorDeps(processEnv(), { full: args.full === true }));
    await writeOut(args.json === true ? `${jsonEnvelope({ ok: true, result: report })}\n` : renderReport(report));
    return report.ok ? EXIT.ok : EXIT.error;
  },
});
