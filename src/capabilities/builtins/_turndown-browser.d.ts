// The browser build of turndown has the same API as its main entry; see _html-markdown.ts for why it is the one used.
declare module "turndown/lib/turndown.browser.es.js" {
  import TurndownService from "turndown";
  export default TurndownService;
}
