import { sessionId } from "../../sessions/session-store.ts";
import type { UsageDeps } from "../../usage/app-usage.ts";
import { periodWindow } from "../../usage/budget-period.ts";
import type { UsageTotals } from "../../usage/ledger-contract.ts";
import { ownerTimezone } from "../../usage/owner-timezone.ts";
import { formatUsd, totalsLine } from "../../usage/render.ts";
import { defineSlashCommand, type SlashInput } from "./command.ts";

/*
 * /usage is operator_only, like /sandbox: what the owner spends is the owner's business, so no command_allowlist
 * hands it to a guest, who gets the owner-only refusal.
 */
export const usageCommand = defineSlashCommand({
  name: "usage",
  access: "operator_only",
  usage: "/usage",
  summary: "tokens and cost of this session and of today, and the budget left",
  run: ({ ctx }: SlashInput) => {
    const deps = ctx.usage?.();
    if (!deps) return "Usage is not counted in this process.";
    return usageReport(ctx.conversation, deps);
  },
});

export function usageReport(conversation: SlashInput["ctx"]["conversation"], deps: UsageDeps): string {
  const config = deps.config();
  const now = deps.now();
  const zone = ownerTimezone(config);
  const day = periodWindow("daily", now, zone);
  const month = periodWindow("monthly", now, zone);
  const spent = (since: number, session?: string) =>
    deps.ledger.summarize({ since, until: now + 1, sessionId: session, timezone: zone }).total;
  const lines = [
    `This session: ${totalsLine(spent(0, sessionId(conversation)))}`,
    `Today (${day.label}, ${zone}): ${totalsLine(spent(day.start))}`,
  ];
  const budget = config.fermix_core?.budget;
  if (budget?.daily_usd !== undefined) lines.push(budgetLine("today", spent(day.start), budget.daily_usd));
  if (budget?.monthly_usd !== undefined)
    lines.push(budgetLine(`in ${month.label}`, spent(month.start), budget.monthly_usd));
  if (budget?.daily_usd === undefined && budget?.monthly_usd === undefined)
    lines.push("No budget is set ([fermix_core.budget] daily_usd, monthly_usd in config.toml).");
  return lines.join("\n");
}

function budgetLine(period: string, totals: UsageTotals, limitUsd: number): string {
  const limit = formatUsd(limitUsd);
  // Calls with no known price count nothing toward a budget (never a guess): say so rather than overstate what is left.
  if (totals.costUsd === null)
    return `Budget ${period}: ${limit}; what is left is unknown (a model used has no price).`;
  const left = Math.max(0, limitUsd - totals.costUsd);
  return `Budget ${period}: ${formatUsd(left)} left of ${limit} (${formatUsd(totals.costUsd)} spent).`;
}
