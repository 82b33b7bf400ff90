import { defaultToolRegistry } from "@/lib/capabilities/installed-capabilities";
import { jobToolChoices, type TToolCatalogEntry } from "./jobs-store";
import type { TChronosToolChoice } from "@/lib/wire/chronos";

/** The tools this installation offers, as the job store checks them and the job form lists them. */
export function toolCatalog(): TToolCatalogEntry[] {
  return defaultToolRegistry()
    .list()
    .map((tool) => ({ name: tool.name, description: tool.description, risk: tool.risk }));
}

export function toolChoices(): TChronosToolChoice[] {
  return jobToolChoices(toolCatalog());
}
