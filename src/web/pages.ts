import type { Page } from "./page.ts";
import { channelsPage } from "./pages/channels.ts";
import { dashboardPage } from "./pages/dashboard.ts";
import { doctorPage } from "./pages/doctor.ts";
import { personalizationPage } from "./pages/personalization.ts";
import { pluginsPage } from "./pages/plugins.ts";
import { providersPage } from "./pages/providers.ts";

/** The setup site's pages, in nav order. Adding one is a file in pages/ and a line here. */
export const PAGES: readonly Page[] = [
  dashboardPage,
  doctorPage,
  providersPage,
  personalizationPage,
  pluginsPage,
  channelsPage,
];
