export type ServiceKind = "systemd" | "launchd";
export type ServiceScope = "user" | "system";

/**
 * Where a service's unit lives and which manager runs it. Apart from target.ts, which plans and renders units,
 * so the unit renderers and the managers can name it without importing what imports them.
 */
export type ServiceTarget = { kind: ServiceKind; scope: ServiceScope; path: string };
