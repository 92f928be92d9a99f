-- ListPartnerOrders: a partner's quotes, newest first, read as one index range.
CREATE INDEX "quotes_partner_created_idx" ON "quotes"("partner_id", "created_at" DESC, "quote_hash" DESC);
