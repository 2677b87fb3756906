// Type-checked, never run: what an integrator writes with openapi-typescript's types of the
// published document and openapi-fetch (make test-apidocs generates ./api.d.ts, then tsc --noEmit).
// A contract change that breaks such code fails the check.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type LoginResponse = components["schemas"]["LoginResponse"];

export async function signInSearchSubscribe(baseUrl: string, email: string, password: string): Promise<number> {
  const api = createClient<paths>({ baseUrl });
  const auth = await api.POST("/api/auth", { body: { email, password } });
  if (!auth.data) throw new Error(`sign-in: ${auth.error?.code}`);
  const token = (auth.data as LoginResponse).token;
  const headers = { Authorization: `Bearer ${token}` };

  const found = await api.POST("/api/lead-finder", {
    headers,
    body: { industry: "plumbing", location: "Austin, TX", limit: 3 },
  });
  const leads = found.data?.leads ?? [];

  const sub = await api.POST("/api/ext-webhook/subscribe", {
    headers: { ...headers, "Idempotency-Key": "sdk-check-1" },
    body: { hookUrl: "https://example.com/hooks/bizassist", event: "new_lead" },
  });
  if (sub.error) throw new Error(`subscribe: ${sub.error.code}`);
  return leads.length;
}

// A receiver types what bizassist POSTs to its hook from the document's webhooks.
type NewLead = NonNullable<import("./api").webhooks["new_lead"]["post"]["requestBody"]>["content"]["application/json"];
type PaymentEvent = NonNullable<import("./api").webhooks["invoice.payment_failed"]["post"]["requestBody"]>["content"]["application/json"];

export function describe(lead: NewLead, payment: PaymentEvent): string {
  const subscription: string | null = payment.subscription_id;
  return `${lead.name} <${lead.email}> from ${lead.source}; subscription ${subscription ?? "none"}`;
}
