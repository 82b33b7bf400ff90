import { z } from "zod";
import { definePluginEntry } from "../../lib/plugins/sdk";

/**
 * A weather-style HTTP plugin (the seeds' weather_get, without curl): one read-only tool that asks a
 * wttr.in-compatible service for a city's weather. The service URL is a setting, so an intranet
 * mirror (or a test fixture) can stand in for wttr.in; its host is then the only other one the
 * plugin may reach (manifest: permissions.network.hostsFromConfig).
 */
type TWttrAnswer = {
  current_condition?: { temp_C?: string; temp_F?: string; FeelsLikeC?: string; FeelsLikeF?: string; humidity?: string; windspeedKmph?: string; windspeedMiles?: string; weatherDesc?: { value?: string }[] }[];
  weather?: { date?: string; maxtempC?: string; mintempC?: string; maxtempF?: string; mintempF?: string }[];
  nearest_area?: { areaName?: { value?: string }[]; country?: { value?: string }[] }[];
};

export default definePluginEntry({
  register(api) {
    const baseUrl = String(api.config.baseUrl ?? "https://wttr.in").replace(/\/+$/, "");
    const imperial = api.config.units === "imperial";
    api.registerTool({
      name: "current",
      description: "Current weather and the next days' temperatures for a city (name or airport code, e.g. Berlin, 北京, PEK).",
      input: z.object({ city: z.string().trim().min(1).max(100).describe("City name or airport code") }),
      risk: "read",
      async execute({ city }, context) {
        const response = await api.fetch(`${baseUrl}/${encodeURIComponent(city)}?format=j1`, { signal: context.signal, headers: { accept: "application/json" } });
        if (!response.ok) return { text: `The weather service answered ${response.status} for ${city}.`, isError: true };
        const data = (await response.json()) as TWttrAnswer;
        const now = data.current_condition?.[0];
        if (!now) return { text: `The weather service has no current conditions for ${city}.`, isError: true };
        const area = data.nearest_area?.[0];
        const place = [area?.areaName?.[0]?.value, area?.country?.[0]?.value].filter(Boolean).join(", ") || city;
        const unit = imperial ? "°F" : "°C";
        const lines = [
          `${place}: ${now.weatherDesc?.[0]?.value ?? "unknown"}, ${imperial ? now.temp_F : now.temp_C}${unit} (feels like ${imperial ? now.FeelsLikeF : now.FeelsLikeC}${unit}), humidity ${now.humidity}%, wind ${imperial ? `${now.windspeedMiles} mph` : `${now.windspeedKmph} km/h`}.`,
          ...(data.weather ?? []).slice(0, 3).map((day) => `${day.date}: ${imperial ? day.mintempF : day.mintempC}–${imperial ? day.maxtempF : day.maxtempC}${unit}`),
        ];
        return lines.join("\n");
      },
    });
  },
});
