-- CreateEnum
CREATE TYPE "Vm" AS ENUM ('evm', 'svm');

-- CreateTable
CREATE TABLE "chains" (
    "name" TEXT NOT NULL,
    "chain_id" BIGINT NOT NULL,
    "vm" "Vm" NOT NULL,
    "native_symbol" TEXT NOT NULL,
    "native_decimals" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "gasless" BOOLEAN NOT NULL,
    "max_gas_drop" DECIMAL(78,0) NOT NULL,
    "deposit_target" TEXT NOT NULL,
    "gasless_executor" TEXT,
    "fee_payer" TEXT,
    "default_fulfill_eta_secs" BIGINT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chains_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "tokens" (
    "chain_name" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "decimals" INTEGER NOT NULL,
    "tier" TEXT NOT NULL,
    "logo_url" TEXT NOT NULL,
    "permit" BOOLEAN NOT NULL,
    "coingecko_id" TEXT,
    "pyth_feed_id" TEXT,
    "listed" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tokens_pkey" PRIMARY KEY ("chain_name","address")
);

-- CreateIndex
CREATE UNIQUE INDEX "chains_chain_id_key" ON "chains"("chain_id");

-- AddForeignKey
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_chain_name_fkey" FOREIGN KEY ("chain_name") REFERENCES "chains"("name") ON DELETE RESTRICT ON UPDATE CASCADE;
