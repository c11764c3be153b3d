import type { Page } from "./page.ts";
import { channelsPage } from "./pages/channels.ts";
import { codingPage } from "./pages/coding.ts";
import { dashboardPage } from "./pages/dashboard.ts";
import { doctorPage } from "./pages/doctor.ts";
import { mediaPage } from "./pages/media.ts";
import { memoryPage } from "./pages/memory.ts";
import { personalizationPage } from "./pages/personalization.ts";
import { pluginsPage } from "./pages/plugins.ts";
import { providersPage } from "./pages/providers.ts";
import { restartPage } from "./pages/restart.ts";
import { sandboxPage } from "./pages/sandbox.ts";
import { searchPage } from "./pages/search.ts";
import { usagePage } from "./pages/usage.ts";
import { voicePage } from "./pages/voice.ts";

/** The setup site's pages, in nav order. Adding one is a file in pages/ and a line here. */
export const PAGES: readonly Page[] = [
  dashboardPage,
  doctorPage,
  usagePage,
  providersPage,
  personalizationPage,
  pluginsPage,
  channelsPage,
  voicePage,
  searchPage,
  mediaPage,
  sandboxPage,
  codingPage,
  memoryPage,
  restartPage,
];
