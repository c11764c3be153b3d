import { createHash } from "node:crypto";

/**
 * The setup site's one script, inline on the waiting page and allowed there by its hash (CSP `script-src
 * 'sha256-…'`, nothing else runs anywhere): it asks the waiting page's own URL every second. The old daemon answers
 * 200 (still waiting, and its first ask is what starts the restart: the page is loaded by then); between stop and
 * start the fetch is refused and asked again — where a meta refresh landing in that moment would strand the
 * browser on its "cannot be reached" page; the new daemon answers with the redirect back, which it follows.
 */
export const RESTART_WAIT_SCRIPT =
  '(function(){var u=location.href;function c(){fetch(u,{redirect:"manual",cache:"no-store",credentials:"same-origin"}).then(function(r){if(r.type==="opaqueredirect"||(r.status>=300&&r.status<400))location.replace(u);else setTimeout(c,1000)},function(){setTimeout(c,1000)})}setTimeout(c,500)})();';

export const RESTART_WAIT_SCRIPT_HASH = `sha256-${createHash("sha256").update(RESTART_WAIT_SCRIPT).digest("base64")}`;
