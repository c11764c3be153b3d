import { expect, test } from "bun:test";
import { requestDirectoryAccess } from "../../src/capabilities/builtins/request-directory-access.ts";
import { approvalFromNotice } from "../../src/gateway/approval-request.ts";

test("the structured approval is read back from request_directory_access's own notice", async () => {
  const notices: string[] = [];
  const ctx = {
    conversation: { channel: "cli", chat: "s1" },
    now: () => 1_000,
    notify: (text: string) => notices.push(text),
    approvals: { request: () => ({ token: "K7PQ2MXA", expiresAt: 61_000 }) },
    sandbox: {
      isGrantable: async (path: string) => ({ ok: true, path }),
      checkPath: async () => ({ ok: false }),
    },
  };
  const reason = "to read the build config\n(and its includes)";
  await requestDirectoryAccess.execute({ path: "/home/u/site", reason }, ctx as any);
  expect(notices).toHaveLength(1);
  expect(approvalFromNotice(notices[0]!)).toEqual({
    kind: "directory",
    path: "/home/u/site",
    reason,
    token: "K7PQ2MXA",
  });
});

test("any other notice has no structured form", () => {
  expect(approvalFromNotice("Plugin foo is starting; try again in a moment.")).toBeUndefined();
});
