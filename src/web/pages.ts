import type { Page } from "./page.ts";
import { dashboardPage } from "./pages/dashboard.ts";
import { doctorPage } from "./pages/doctor.ts";

/** The setup site's pages, in nav order. Adding one is a file in pages/ and a line here. */
export const PAGES: readonly Page[] = [dashboardPage, doctorPage];
