// Generated from docs/openapi.json by `npm run openapi`; do not edit.
export interface paths {
    "/api/v1/auth/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Verify API keys and list SafeSites */
        get: operations["testAuth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a payment */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a payment's status */
        get: operations["getPayment"];
        put?: never;
        post?: never;
        /**
         * Cancel a pending or processing payment
         * @description The hosted checkout link is not closed: it stays open until it expires. After ALREADY_COMPLETED, read the payment before creating a replacement: the customer may already have paid.
         */
        delete: operations["cancelPayment"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payments, newest first */
        get: operations["listPayments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a payment's webhook events with their deliveries and attempts */
        get: operations["listPaymentEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/{id}/events/{eventId}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a fresh delivery of one event
         * @description The new delivery carries the event's own webhook-id (receivers de-duplicate on it) with a fresh webhook-timestamp and signature; the earlier deliveries' log is kept.
         */
        post: operations["resendEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/{id}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a payment's refunds, including those made at the processor */
        get: operations["listRefunds"];
        put?: never;
        /**
         * Refund a payment, in full or in part
         * @description Allowed while the payment is succeeded or partially_refunded, up to what remains. The answer comes within 10 s: `succeeded`, or `pending` while the processor has not confirmed (or did not answer: the service asks again under the same processor key, so the refund is carried out at most once). A definite refusal is 502 PROCESSOR_ERROR and changes nothing. The payment's status and amountRefunded change when the processor confirms the refund (payment.refunded).
         */
        post: operations["createRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/disputes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List disputes: open ones first, soonest deadline first; then closed ones, newest first */
        get: operations["listDisputes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/disputes/{disputeId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one dispute */
        get: operations["getDispute"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/{id}/disputes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a payment's disputes, oldest first */
        get: operations["listPaymentDisputes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/disputes/{disputeId}/evidence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send evidence to the processor; with submit: true, submit it for review
         * @description Each text at most 20,000 characters. Taken only while the dispute is needs_response and before evidenceDueBy, otherwise 409 DISPUTE_CLOSED. A refusal by the processor is 502 PROCESSOR_ERROR. When the processor does not answer, 503: whether it took the evidence is settled by reading the dispute there again, and the dispute shows it.
         */
        post: operations["sendDisputeEvidence"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/disputes/{disputeId}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Concede the dispute: the payment becomes dispute_lost
         * @description Taken only while the dispute is needs_response and before evidenceDueBy, otherwise 409 DISPUTE_CLOSED. The payment moves to dispute_lost and payment.disputed is sent.
         */
        post: operations["acceptDispute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payment-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payment links, newest first */
        get: operations["listPaymentLinks"];
        put?: never;
        /** Create a payment link */
        post: operations["createPaymentLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payment-links/{linkId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a payment link */
        get: operations["getPaymentLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change or deactivate a payment link */
        patch: operations["changePaymentLink"];
        trace?: never;
    };
    "/api/v1/webhook-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the group's webhook URL */
        get: operations["getWebhookSettings"];
        /** Set or clear the group's webhook URL */
        put: operations["setWebhookSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the group's webhook endpoints */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /** Add a webhook endpoint (at most 16 a group) */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{endpointId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook endpoint */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /** Delete a webhook endpoint; its deliveries not yet made are given up */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /** Change a webhook endpoint: its URL, events, description, or whether it is enabled */
        patch: operations["changeWebhookEndpoint"];
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{endpointId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give the endpoint a new signing secret; the old one signs beside it during the grace */
        post: operations["rotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{endpointId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send the endpoint one signed webhook.test event */
        post: operations["testWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/branding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the group's branding */
        get: operations["getBranding"];
        /** Change the group's branding (given fields only; null clears one) */
        put: operations["setBranding"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Catch up on events created at or after `since`, oldest first
         * @description Page by passing the last event's createdAt as the next `since`; an event on the boundary may repeat, so de-duplicate on its id.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send again every event whose deliveries all failed in a time window
         * @description Each keeps its webhook-id, so a receiver that did get it de-duplicates. With endpointId: every event of the window that endpoint takes and did not receive, to that endpoint only.
         */
        post: operations["recoverEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the group's events as Server-Sent Events
         * @description Each message has `id:` the eventId (the webhook-id), `event:` the event name and `data:` the webhook body. Send `Last-Event-ID` to resume just after that event; without it the stream starts now. At most 10 streams per group are open at once; revoking the key ends its streams.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/customers/erase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Erase a customer of this group (GDPR article 17)
         * @description Each matched payment loses customerEmail, customerName, description and metadata everywhere the service keeps or shows them (the payment, lists and exports, the events feed and stream, stored webhook bodies, receipts, idempotent requests) and gains erasedAt; ids, amounts, statuses, times and refunds stay. Audited as customer.erased with a keyed hash of the address. An address with no payments, or already erased, answers 0. The processor's own records are the processor's to erase.
         */
        post: operations["eraseCustomer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make the sandbox produce an event on a new payment (sandbox only)
         * @description Creates a payment of 19.99 USD for the group and drives it at the sandbox processor so that the event follows, through the same path as a real one. Answers 404 unless the service runs with PROCESSOR=sandbox.
         */
        post: operations["triggerSandboxEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List groups, newest first */
        get: operations["listGroups"];
        put?: never;
        /** Create a group with its SafeSites and first key pair */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/groups/{groupId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a group */
        get: operations["getGroup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/groups/{groupId}/webhook-secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a new webhook signing secret; the old one keeps signing during the grace period */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/groups/{groupId}/safe-sites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a SafeSite */
        post: operations["addSafeSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/safe-sites/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Rename, move, activate or deactivate a SafeSite */
        patch: operations["updateSafeSite"];
        trace?: never;
    };
    "/admin/v1/groups/{groupId}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a new key pair (the secret is shown only in this response) */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/keys/{publicKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key pair at once */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/reconciliation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The open reconciliation items: one per payment and cause, each with kind and transactionId */
        get: operations["listReconciliationItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/reconciliation/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Compare the payments changed in a window with the processor, and repair what it proves */
        post: operations["startReconciliationRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/reconciliation/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A reconciliation run's progress and figures */
        get: operations["getReconciliationRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/reconciliation/items/{itemId}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refund in full the money a customer paid on a checkout that belongs to no payment (an orphan_checkout_paid or unbooked_payment item), and resolve the item */
        post: operations["refundOrphanCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/payments/{transactionId}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refund all that remains of a payment, whichever group (a payment paid after cancel) */
        post: operations["refundPaidAfterCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/deliveries/failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Webhook deliveries that were dropped, across groups, newest first */
        get: operations["listFailedDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/deliveries/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send again every event, of one group or all, whose deliveries all failed in a time window */
        post: operations["recoverDeliveries"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/groups/{groupId}/routing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A group's processor routes (none: the installation's default route) */
        get: operations["getRouting"];
        /** Replace a group's processor routes: the first whose currency matches a payment applies */
        put: operations["setRouting"];
        post?: never;
        /** Return a group to the installation's default route */
        delete: operations["clearRouting"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/groups/{groupId}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Invite a dashboard user to a group */
        post: operations["inviteUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/operators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Invite an operator to the console */
        post: operations["inviteOperator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/password-resets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a password reset link for a dashboard user or an operator
         * @description Single use, valid one hour; earlier reset links of the account stop working. Using it sets the password, ends every session of the account and signs in. With SMTP_URL set it is also e-mailed.
         */
        post: operations["createPasswordReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/customers/erase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Erase a customer of one group, or of every group
         * @description Each matched payment loses customerEmail, customerName, description and metadata everywhere the service keeps or shows them (the payment, lists and exports, the events feed and stream, stored webhook bodies, receipts, idempotent requests) and gains erasedAt; ids, amounts, statuses, times and refunds stay. Audited as customer.erased with a keyed hash of the address. An address with no payments, or already erased, answers 0. The processor's own records are the processor's to erase. Without groupId, every group's payments with this address.
         */
        post: operations["eraseCustomerOfAnyGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    paymentEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment event, posted to the payment's webhookUrl
         * @description Signed as Standard Webhooks: verify `webhook-signature` over `webhook-id.webhook-timestamp.body` with the group's whsec_ secret. `webhook-id` is the same on every retry and resend: de-duplicate on it. Answer 2xx within WEBHOOK_TIMEOUT_MS; anything else is retried.
         */
        post: operations["receivePaymentEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @example {
         *       "success": false,
         *       "error": {
         *         "code": "NOT_FOUND",
         *         "message": "No such resource for these credentials"
         *       }
         *     }
         */
        Error: {
            /** @constant */
            success: false;
            error: {
                /** @enum {string} */
                code: "INVALID_REQUEST" | "ALREADY_COMPLETED" | "REFUND_NOT_ALLOWED" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "NO_ACTIVE_SAFESITE" | "NO_ELIGIBLE_PROCESSOR" | "IDEMPOTENCY_CONFLICT" | "IDEMPOTENCY_IN_PROGRESS" | "ACCOUNT_EXISTS" | "DISPUTE_CLOSED" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "RATE_LIMIT_EXCEEDED" | "INTERNAL_ERROR" | "PROCESSOR_ERROR" | "SERVICE_UNAVAILABLE";
                message: string;
                details?: unknown;
            };
        };
        /**
         * @example {
         *       "id": "5f0c8a52-3f3b-4c3e-9d6b-0a8f4f3b2c1d",
         *       "status": "succeeded",
         *       "amount": 1999,
         *       "currency": "usd",
         *       "customerEmail": "jane@example.com",
         *       "description": "Blue mug",
         *       "metadata": {
         *         "orderId": "A-1001"
         *       },
         *       "processorSessionId": "cs_test_a1b2c3",
         *       "processorPaymentIntentId": "pi_3Nx1",
         *       "createdAt": "2026-11-24T09:00:00.000Z",
         *       "completedAt": "2026-11-24T09:02:13.000Z",
         *       "amountRefunded": 0,
         *       "paidAfterCancel": false
         *     }
         */
        Payment: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "pending" | "processing" | "succeeded" | "failed" | "expired" | "cancelled" | "refunded" | "partially_refunded" | "disputed" | "dispute_won" | "dispute_lost";
            amount: number;
            /** @enum {string} */
            currency: "usd" | "cad";
            customerEmail?: string;
            description?: string | null;
            metadata?: {
                [key: string]: unknown;
            } | null;
            processorSessionId?: string;
            processorPaymentIntentId?: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            completedAt: string | null;
            /** @description Cents refunded, as the processor confirmed */
            amountRefunded?: number;
            /** @description The processor took the customer's money for a payment that stays cancelled */
            paidAfterCancel?: boolean;
            /**
             * @description The processor whose checkout the customer is sent to; every later call goes there
             * @enum {string}
             */
            processor?: "stripe" | "square";
            /**
             * Format: uuid
             * @description The payment link the customer paid through; null for a payment made through the API
             */
            paymentLinkId?: string | null;
            /** @description successUrl or cancelUrl was refused by the unreachable-host rule (a loopback, private or reserved host), so the customer is sent to the fallback (FALLBACK_URL, or the payment's own page) instead */
            redirectFallback?: boolean;
            /**
             * Format: date-time
             * @description When the customer was erased (POST /api/v1/customers/erase, or PII_RETENTION_DAYS): customerEmail is absent, description and metadata are null; the bookkeeping stays
             */
            erasedAt?: string;
        };
        Refund: {
            /** Format: uuid */
            refundId: string;
            /** Format: uuid */
            transactionId: string;
            amount: number;
            /** @enum {string} */
            currency: "usd" | "cad";
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            /** @enum {string|null} */
            reason: "requested_by_customer" | "duplicate" | "fraudulent" | null;
            /** Format: date-time */
            createdAt: string;
        };
        Dispute: {
            /** Format: uuid */
            disputeId: string;
            /** Format: uuid */
            transactionId: string;
            /** @enum {string} */
            processor: "stripe" | "square";
            processorDisputeId: string;
            /** @description Minor units */
            amount: number;
            /** @description Lowercase ISO 4217, as the processor reports it */
            currency: string;
            /** @enum {string} */
            reason: "fraudulent" | "product_not_received" | "product_unacceptable" | "duplicate" | "credit_not_processed" | "unrecognized" | "general";
            /** @enum {string} */
            status: "needs_response" | "under_review" | "won" | "lost" | "accepted";
            /**
             * Format: date-time
             * @description The last moment the processor takes evidence or acceptance
             */
            evidenceDueBy: string | null;
            /** Format: date-time */
            evidenceSubmittedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        CreatedPayment: {
            /** Format: uuid */
            transactionId: string;
            paymentUrl: string;
            sessionId: string;
            /** Format: date-time */
            expiresAt: string;
        };
        Event: {
            /**
             * Format: uuid
             * @description The same as eventId
             */
            id: string;
            /**
             * Format: uuid
             * @description The webhook-id header of every delivery of this event
             */
            eventId: string;
            /** @enum {string} */
            type: "payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed";
            /**
             * @description The same as type
             * @enum {string}
             */
            event: "payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed";
            /** @enum {string} */
            status: "pending" | "processing" | "succeeded" | "failed" | "expired" | "cancelled" | "refunded" | "partially_refunded" | "disputed" | "dispute_won" | "dispute_lost";
            /** Format: uuid */
            transactionId: string;
            /** Format: date-time */
            createdAt: string;
            payload: components["schemas"]["WebhookPayload"];
            deliveries: {
                /** Format: uuid */
                id: string;
                url: string;
                /** @enum {string} */
                state: "pending" | "succeeded" | "failed";
                attemptCount: number;
                /** Format: date-time */
                nextAttemptAt: string | null;
                sentTimestamp: string | null;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                completedAt: string | null;
                attempts: {
                    attempt: number;
                    /** Format: date-time */
                    attemptedAt: string;
                    statusCode: number | null;
                    error: string | null;
                    durationMs: number;
                    /** @description The start of the receiver's answer (512 bytes); null when none came */
                    answer: string | null;
                }[];
            }[];
        };
        /**
         * @example {
         *       "event": "payment.completed",
         *       "transactionId": "5f0c8a52-3f3b-4c3e-9d6b-0a8f4f3b2c1d",
         *       "status": "succeeded",
         *       "amount": 1999,
         *       "currency": "usd",
         *       "customerEmail": "jane@example.com",
         *       "processorPaymentId": "pi_3Nx1",
         *       "metadata": {
         *         "orderId": "A-1001"
         *       },
         *       "completedAt": "2026-11-24T09:02:13.000Z",
         *       "timestamp": "2026-11-24T09:02:13.120Z",
         *       "amountRefunded": 0
         *     }
         */
        WebhookPayload: {
            /** @enum {string} */
            event: "payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed";
            /** Format: uuid */
            transactionId: string;
            /** @enum {string} */
            status: "pending" | "processing" | "succeeded" | "failed" | "expired" | "cancelled" | "refunded" | "partially_refunded" | "disputed" | "dispute_won" | "dispute_lost";
            /** @description Cents */
            amount: number;
            /** @enum {string} */
            currency: "usd" | "cad";
            customerEmail: string;
            processorPaymentId: string | null;
            metadata: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            completedAt: string | null;
            /** Format: date-time */
            timestamp: string;
            /** @description Cents refunded so far */
            amountRefunded: number;
        };
        SafeSite: {
            /** Format: uuid */
            id: string;
            name: string;
            url: string;
            isActive: boolean;
        };
        Group: {
            /** Format: uuid */
            groupId: string;
            groupName: string;
            safeSites: components["schemas"]["SafeSite"][];
        };
        GroupSummary: {
            /** Format: uuid */
            groupId: string;
            groupName: string;
            activeSafeSites: number;
            /** Format: date-time */
            createdAt: string;
        };
        CreatedGroup: {
            /** Format: uuid */
            groupId: string;
            groupName: string;
            safeSites: components["schemas"]["SafeSite"][];
            publicKey: string;
            /** @description Shown once */
            secretKey: string;
            /** @description whsec_…, signs this group's webhooks */
            webhookSecret: string;
        };
        KeyPair: {
            publicKey: string;
            /** @description Shown once */
            secretKey: string;
        };
        RevokedKey: {
            publicKey: string;
            /** @constant */
            revoked: true;
        };
        WebhookSecretRotation: {
            webhookSecret: string;
            /** Format: date-time */
            previousSecretValidUntil: string | null;
        };
        ReconciliationItem: {
            id: string;
            /** @enum {string} */
            kind: "paid_after_cancel" | "paid_after_expiry" | "disputed_after_close" | "checkout_missing" | "processor_mismatch" | "drift" | "orphan_checkout_paid" | "unbooked_payment";
            /** Format: uuid */
            transactionId: string;
            /** Format: uuid */
            groupId: string;
            amount?: number | null;
            currency?: string | null;
            status?: string | null;
            amountRefunded?: number | null;
            refundable?: number;
            processorPaymentId?: string | null;
            processorEventId?: string | null;
            reason?: string | null;
            /** Format: date-time */
            flaggedAt: string;
        };
        StartedRun: {
            /** Format: uuid */
            runId: string;
        };
        ReconciliationRun: {
            /** Format: uuid */
            runId: string;
            /** @enum {string} */
            status: "running" | "finished";
            checked?: number;
            repaired?: number;
            drifts?: number;
            /** Format: date-time */
            since: string;
            /** Format: date-time */
            until: string;
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            finishedAt?: string | null;
        };
        FailedDelivery: {
            /** Format: uuid */
            deliveryId: string;
            /** Format: uuid */
            eventId: string;
            event: string;
            /** Format: uuid */
            transactionId: string;
            /** Format: uuid */
            groupId: string;
            url: string;
            attempts: number;
            lastStatusCode: number | null;
            lastError: string | null;
            /** Format: date-time */
            failedAt: string;
        };
        Queued: {
            queued: number;
        };
        Invite: {
            /** Format: uuid */
            userId?: string;
            /** Format: uuid */
            operatorId?: string;
            email: string;
            /** @enum {string} */
            role?: "owner" | "developer" | "viewer";
            /** @description Single use, 72 hours */
            inviteUrl: string;
        };
        PasswordReset: {
            resetUrl: string;
            /** Format: date-time */
            expiresAt: string;
        };
    };
    responses: {
        /** @description The request is malformed, or not allowed in the payment's state */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "INVALID_REQUEST",
                 *         "message": "The request is malformed, or not allowed in the payment's state"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Missing or wrong credentials */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "UNAUTHORIZED",
                 *         "message": "Missing or wrong credentials"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The credentials may not do this */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "FORBIDDEN",
                 *         "message": "The credentials may not do this"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such resource for these credentials */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "NOT_FOUND",
                 *         "message": "No such resource for these credentials"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A conflicting state: no active SafeSite, an Idempotency-Key reused with another body (IDEMPOTENCY_CONFLICT) or whose request is still running (IDEMPOTENCY_IN_PROGRESS: ask again with the same key after Retry-After), an account that exists, a dispute no longer taking evidence or acceptance (DISPUTE_CLOSED) */
        Conflict: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "NO_ACTIVE_SAFESITE",
                 *         "message": "A conflicting state: no active SafeSite, an Idempotency-Key reused with another body (IDEMPOTENCY_CONFLICT) or whose request is still running (IDEMPOTENCY_IN_PROGRESS: ask again with the same key after Retry-After), an account that exists, a dispute no longer taking evidence or acceptance (DISPUTE_CLOSED)"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is over 64 KiB */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "PAYLOAD_TOO_LARGE",
                 *         "message": "The body is over 64 KiB"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is not application/json */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "UNSUPPORTED_MEDIA_TYPE",
                 *         "message": "The body is not application/json"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests; wait for Retry-After seconds */
        TooManyRequests: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "RATE_LIMIT_EXCEEDED",
                 *         "message": "Too many requests; wait for Retry-After seconds"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The service failed; the request may be retried */
        InternalError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "INTERNAL_ERROR",
                 *         "message": "The service failed; the request may be retried"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The payment processor refused or failed */
        ProcessorError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "PROCESSOR_ERROR",
                 *         "message": "The payment processor refused or failed"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The service is starting, stopping or cannot reach its database; retry */
        ServiceUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "success": false,
                 *       "error": {
                 *         "code": "SERVICE_UNAVAILABLE",
                 *         "message": "The service is starting, stopping or cannot reach its database; retry"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id, as in the service's logs; send X-Request-Id to choose it */
        "X-Request-Id": string;
        /** @description Seconds to wait before retrying */
        "Retry-After": number;
        /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key */
        "Idempotent-Replayed": "true";
        /** @description Requests allowed per window for this key */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current window */
        "X-RateLimit-Remaining": number;
        /** @description Seconds until the window resets */
        "X-RateLimit-Reset": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    testAuth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            authenticated: boolean;
                            /** Format: uuid */
                            groupId: string;
                            groupName: string;
                            safeSites: {
                                id: string;
                                name: string;
                                isActive: boolean;
                            }[];
                            activeSafeSiteCount: number;
                            message: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: {
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "amount": 1999,
                 *       "currency": "usd",
                 *       "successUrl": "https://shop.example/thanks/{transactionId}",
                 *       "cancelUrl": "https://shop.example/cart",
                 *       "customerEmail": "jane@example.com",
                 *       "description": "Blue mug",
                 *       "webhookUrl": "https://shop.example/webhooks/checkout",
                 *       "metadata": {
                 *         "orderId": "A-1001"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description Cents */
                    amount: number;
                    /**
                     * @description usd or cad (any case is accepted)
                     * @enum {string}
                     */
                    currency: "usd" | "cad";
                    successUrl: string;
                    cancelUrl: string;
                    /** Format: email */
                    customerEmail?: string;
                    customerName?: string;
                    description?: string;
                    webhookUrl?: string;
                    metadata?: {
                        [key: string]: string | number | boolean | null;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["CreatedPayment"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["ProcessorError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["Payment"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cancelPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            id: string;
                            /** @enum {string} */
                            status: "cancelled";
                            message: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listPayments: {
        parameters: {
            query?: {
                status?: "pending" | "processing" | "succeeded" | "failed" | "expired" | "cancelled" | "refunded" | "partially_refunded" | "disputed" | "dispute_won" | "dispute_lost";
                /** @description ISO 8601; createdAt at or after (inclusive) */
                from?: string;
                /** @description ISO 8601; createdAt before (exclusive) */
                to?: string;
                /** @description 1 to 100; 20 when left out */
                limit?: string;
                /** @description The nextCursor of the previous page */
                after?: string;
                /** @description Only the payments made through this payment link */
                paymentLinkId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            payments: components["schemas"]["Payment"][];
                            hasMore: boolean;
                            nextCursor: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listPaymentEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Event"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    resendEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                id: string;
                /** @description Event ID */
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: it happens in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            deliveryId: string;
                            /** @enum {string} */
                            state: "pending";
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listRefunds: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            refunds: components["schemas"]["Refund"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createRefund: {
        parameters: {
            query?: never;
            header?: {
                "idempotency-key"?: string;
            };
            path: {
                /** @description Payment ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "amount": 500,
                 *       "reason": "requested_by_customer"
                 *     }
                 */
                "application/json": {
                    /** @description Cents; all that remains when left out */
                    amount?: number;
                    /** @enum {string} */
                    reason?: "requested_by_customer" | "duplicate" | "fraudulent";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["Refund"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["ProcessorError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listDisputes: {
        parameters: {
            query?: {
                status?: "needs_response" | "under_review" | "won" | "lost" | "accepted";
                /** @description 1 to 100; 20 when left out */
                limit?: string;
                /** @description The nextCursor of the previous page */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            disputes: components["schemas"]["Dispute"][];
                            hasMore: boolean;
                            nextCursor: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDispute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dispute ID */
                disputeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["Dispute"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listPaymentDisputes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            disputes: components["schemas"]["Dispute"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sendDisputeEvidence: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dispute ID */
                disputeId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productDescription?: string;
                    customerCommunication?: string;
                    refundPolicy?: string;
                    serviceDate?: string;
                    shippingTracking?: string;
                    uncategorizedText?: string;
                    /** @description Submit the evidence for review; it can no longer be changed */
                    submit?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["Dispute"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["ProcessorError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    acceptDispute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dispute ID */
                disputeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["Dispute"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["ProcessorError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listPaymentLinks: {
        parameters: {
            query?: {
                /** @description 1 to 100; 20 when left out */
                limit?: string;
                /** @description The nextCursor of the previous page */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            links: {
                                /** Format: uuid */
                                linkId: string;
                                /** @description The page customers open: <an active SafeSite>/l/<slug> */
                                url: string;
                                name: string;
                                /** @enum {string} */
                                currency: "usd" | "cad";
                                /** @description The fixed price in cents; null: the customer chooses */
                                amount: number | null;
                                minAmount: number | null;
                                maxAmount: number | null;
                                description: string | null;
                                /** @description Where customers go after paying; null: the service's own confirmation page */
                                successUrl: string | null;
                                metadata: {
                                    [key: string]: unknown;
                                } | null;
                                active: boolean;
                                /** Format: date-time */
                                createdAt: string;
                                /** @description The link's payments that were paid */
                                paymentCount: number;
                                /** @description What they paid, in cents (refunds not subtracted) */
                                amountPaid: number;
                            }[];
                            hasMore: boolean;
                            nextCursor: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Hand-thrown mug",
                 *       "currency": "usd",
                 *       "amount": 1800,
                 *       "description": "Stoneware, 350 ml",
                 *       "successUrl": "https://shop.example/thanks"
                 *     }
                 */
                "application/json": {
                    /** @description What the customer pays for */
                    name: string;
                    /**
                     * @description usd or cad (any case is accepted)
                     * @enum {string}
                     */
                    currency: "usd" | "cad";
                    /** @description A fixed price in cents; leave out to let the customer choose */
                    amount?: number;
                    /** @description The least a customer may choose, in cents (default 100) */
                    minAmount?: number;
                    /** @description The most a customer may choose, in cents (default 99999999) */
                    maxAmount?: number;
                    description?: string;
                    successUrl?: string;
                    metadata?: {
                        [key: string]: string | number | boolean | null;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            linkId: string;
                            /** @description The page customers open: <an active SafeSite>/l/<slug> */
                            url: string;
                            name: string;
                            /** @enum {string} */
                            currency: "usd" | "cad";
                            /** @description The fixed price in cents; null: the customer chooses */
                            amount: number | null;
                            minAmount: number | null;
                            maxAmount: number | null;
                            description: string | null;
                            /** @description Where customers go after paying; null: the service's own confirmation page */
                            successUrl: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            active: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The link's payments that were paid */
                            paymentCount: number;
                            /** @description What they paid, in cents (refunds not subtracted) */
                            amountPaid: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment link ID */
                linkId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            linkId: string;
                            /** @description The page customers open: <an active SafeSite>/l/<slug> */
                            url: string;
                            name: string;
                            /** @enum {string} */
                            currency: "usd" | "cad";
                            /** @description The fixed price in cents; null: the customer chooses */
                            amount: number | null;
                            minAmount: number | null;
                            maxAmount: number | null;
                            description: string | null;
                            /** @description Where customers go after paying; null: the service's own confirmation page */
                            successUrl: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            active: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The link's payments that were paid */
                            paymentCount: number;
                            /** @description What they paid, in cents (refunds not subtracted) */
                            amountPaid: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    changePaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment link ID */
                linkId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "active": false
                 *     }
                 */
                "application/json": {
                    /** @description false: the link's page answers 410 and takes no payment */
                    active?: boolean;
                    name?: string;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            linkId: string;
                            /** @description The page customers open: <an active SafeSite>/l/<slug> */
                            url: string;
                            name: string;
                            /** @enum {string} */
                            currency: "usd" | "cad";
                            /** @description The fixed price in cents; null: the customer chooses */
                            amount: number | null;
                            minAmount: number | null;
                            maxAmount: number | null;
                            description: string | null;
                            /** @description Where customers go after paying; null: the service's own confirmation page */
                            successUrl: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            active: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The link's payments that were paid */
                            paymentCount: number;
                            /** @description What they paid, in cents (refunds not subtracted) */
                            amountPaid: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWebhookSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description Where events of payments without a webhookUrl of their own are delivered; null: nowhere */
                            url: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    setWebhookSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://shop.example/webhooks/checkout"
                 *     }
                 */
                "application/json": {
                    url: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description Where events of payments without a webhookUrl of their own are delivered; null: nowhere */
                            url: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            endpoints: {
                                /** Format: uuid */
                                endpointId: string;
                                url: string;
                                events: ("payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed")[];
                                description: string | null;
                                enabled: boolean;
                                /**
                                 * @description failing: disabled after every delivery failed for WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS
                                 * @enum {string|null}
                                 */
                                disabledReason: "failing" | "disabled" | null;
                                /** Format: date-time */
                                createdAt: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    /** @description Event names (payment.completed, payment.failed, payment.expired, payment.refunded, payment.disputed); all of them when left out */
                    events?: string[];
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            endpointId: string;
                            url: string;
                            events: ("payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed")[];
                            description: string | null;
                            enabled: boolean;
                            /**
                             * @description failing: disabled after every delivery failed for WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS
                             * @enum {string|null}
                             */
                            disabledReason: "failing" | "disabled" | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The endpoint's signing secret (whsec_…): shown this once */
                            secret: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint ID */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            endpointId: string;
                            url: string;
                            events: ("payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed")[];
                            description: string | null;
                            enabled: boolean;
                            /**
                             * @description failing: disabled after every delivery failed for WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS
                             * @enum {string|null}
                             */
                            disabledReason: "failing" | "disabled" | null;
                            /** Format: date-time */
                            createdAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint ID */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            endpointId: string;
                            deleted: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    changeWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint ID */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    /** @description Event names (payment.completed, payment.failed, payment.expired, payment.refunded, payment.disputed); all of them when left out */
                    events?: string[];
                    description?: string | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            endpointId: string;
                            url: string;
                            events: ("payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed")[];
                            description: string | null;
                            enabled: boolean;
                            /**
                             * @description failing: disabled after every delivery failed for WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS
                             * @enum {string|null}
                             */
                            disabledReason: "failing" | "disabled" | null;
                            /** Format: date-time */
                            createdAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint ID */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description How long the old secret goes on signing (default 86400) */
                    graceSeconds?: number;
                } | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description The new signing secret: shown this once */
                            secret: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    testWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint ID */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: it happens in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            endpointId: string;
                            event: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getBranding: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description The name customers see; null: the group's name */
                            displayName: string | null;
                            /** @description #rrggbb */
                            brandColor: string | null;
                            logoUrl: string | null;
                            /** @description E-mail receipts to customers (needs SMTP_URL, or MAIL_DIR with the sandbox processor) */
                            receipts: boolean;
                            /** @description Where customers' replies to receipts go */
                            replyTo: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    setBranding: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "displayName": "Shop Example",
                 *       "brandColor": "#1d4ed8",
                 *       "receipts": true
                 *     }
                 */
                "application/json": {
                    displayName?: string | null;
                    /** @description #rrggbb */
                    brandColor?: string | null;
                    /** @description A data URL of a PNG or JPEG image, at most 204800 bytes (judged by its bytes; never SVG) */
                    logo?: string | null;
                    receipts?: boolean;
                    /** @description Your address for customers' replies to receipts (null: none) */
                    replyTo?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description The name customers see; null: the group's name */
                            displayName: string | null;
                            /** @description #rrggbb */
                            brandColor: string | null;
                            logoUrl: string | null;
                            /** @description E-mail receipts to customers (needs SMTP_URL, or MAIL_DIR with the sandbox processor) */
                            receipts: boolean;
                            /** @description Where customers' replies to receipts go */
                            replyTo: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listEvents: {
        parameters: {
            query: {
                since: string;
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Event"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    recoverEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-01T00:00:00Z",
                 *       "until": "2026-11-02T00:00:00Z"
                 *     }
                 */
                "application/json": {
                    /** Format: date-time */
                    since: string;
                    /** Format: date-time */
                    until?: string;
                    /** @description Webhook endpoint ID */
                    endpointId?: string;
                };
            };
        };
        responses: {
            /** @description Accepted: it happens in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            queued: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    streamEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description The id of the last event received */
                "last-event-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A stream of events that stays open */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    eraseCustomer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description The customer's e-mail address, any case
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            erased: {
                                /** @description Payments whose customer was erased now */
                                payments: number;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    triggerSandboxEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "payment.completed"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    event: "payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed";
                };
            };
        };
        responses: {
            /** @description Accepted: it happens in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            transactionId: string;
                            /** @enum {string} */
                            event: "payment.completed" | "payment.failed" | "payment.expired" | "payment.refunded" | "payment.disputed";
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listGroups: {
        parameters: {
            query?: {
                /** @description 1 to 500; 100 when left out */
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["GroupSummary"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Shop Example",
                 *       "safeSites": [
                 *         {
                 *           "name": "Main",
                 *           "url": "https://pay.shop.example"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    name: string;
                    safeSites?: {
                        name: string;
                        url: string;
                        isActive?: boolean;
                    }[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["CreatedGroup"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Group"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "graceSeconds": 86400
                 *     }
                 */
                "application/json": {
                    graceSeconds?: number;
                } | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["WebhookSecretRotation"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    addSafeSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Main",
                 *       "url": "https://pay.shop.example",
                 *       "isActive": true
                 *     }
                 */
                "application/json": {
                    name: string;
                    url: string;
                    isActive?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["SafeSite"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateSafeSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description SafeSite ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "isActive": false
                 *     }
                 */
                "application/json": {
                    name?: string;
                    url?: string;
                    isActive?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["SafeSite"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["KeyPair"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                publicKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["RevokedKey"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listReconciliationItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["ReconciliationItem"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    startReconciliationRun: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-01T00:00:00Z",
                 *       "until": "2026-11-02T00:00:00Z"
                 *     }
                 */
                "application/json": {
                    /** Format: date-time */
                    since: string;
                    /** Format: date-time */
                    until?: string;
                };
            };
        };
        responses: {
            /** @description Accepted: it happens in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["StartedRun"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getReconciliationRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Reconciliation run ID */
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["ReconciliationRun"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    refundOrphanCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Reconciliation item id */
                itemId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            itemId: string;
                            /** @enum {string} */
                            processor: "stripe" | "square";
                            processorPaymentId: string;
                            processorRefundId: string;
                            /** @description Minor units */
                            amount: number;
                            currency: string;
                            /** @enum {string} */
                            status: "pending" | "succeeded";
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    refundPaidAfterCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment ID */
                transactionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["Refund"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["ProcessorError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listFailedDeliveries: {
        parameters: {
            query?: {
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["FailedDelivery"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    recoverDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-01T00:00:00Z",
                 *       "until": "2026-11-02T00:00:00Z"
                 *     }
                 */
                "application/json": {
                    /** Format: date-time */
                    since: string;
                    /** Format: date-time */
                    until?: string;
                    /** @description Group ID */
                    groupId?: string;
                };
            };
        };
        responses: {
            /** @description Accepted: it happens in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Queued"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getRouting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            groupId: string;
                            /** @description The installation's default route (PROCESSOR's order), which a group without routes follows */
                            defaultRoute: ("stripe" | "square")[];
                            routes: {
                                /** @enum {string} */
                                currency?: "usd" | "cad";
                                processors: ("stripe" | "square")[];
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    setRouting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "routes": [
                 *         {
                 *           "currency": "usd",
                 *           "processors": [
                 *             "square",
                 *             "stripe"
                 *           ]
                 *         },
                 *         {
                 *           "processors": [
                 *             "stripe"
                 *           ]
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    routes: {
                        /** @description A payment currency (usd, cad, any case); none: every payment */
                        currency?: string;
                        /** @description Processors to try in turn (stripe, square), each enabled here */
                        processors: string[];
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            groupId: string;
                            /** @description The installation's default route (PROCESSOR's order), which a group without routes follows */
                            defaultRoute: ("stripe" | "square")[];
                            routes: {
                                /** @enum {string} */
                                currency?: "usd" | "cad";
                                processors: ("stripe" | "square")[];
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    clearRouting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** Format: uuid */
                            groupId: string;
                            /** @description The installation's default route (PROCESSOR's order), which a group without routes follows */
                            defaultRoute: ("stripe" | "square")[];
                            routes: {
                                /** @enum {string} */
                                currency?: "usd" | "cad";
                                processors: ("stripe" | "square")[];
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    inviteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Group ID */
                groupId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "owner@shop.example",
                 *       "role": "owner"
                 *     }
                 */
                "application/json": {
                    /** Format: email */
                    email: string;
                    /** @enum {string} */
                    role: "owner" | "developer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Invite"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    inviteOperator: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "you@example.com"
                 *     }
                 */
                "application/json": {
                    /** Format: email */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["Invite"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createPasswordReset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "owner@shop.example",
                 *       "audience": "dashboard"
                 *     }
                 */
                "application/json": {
                    /** Format: email */
                    email: string;
                    /** @enum {string} */
                    audience: "dashboard" | "operator";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        data: components["schemas"]["PasswordReset"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    eraseCustomerOfAnyGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description The customer's e-mail address, any case
                     */
                    email: string;
                    /** @description One group; none: every group */
                    groupId?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            erased: {
                                /** @description Payments whose customer was erased now */
                                payments: number;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    receivePaymentEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id */
                "webhook-id": string;
                /** @description Seconds since the epoch, of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256>`, space-separated during a secret rotation */
                "webhook-signature": string;
                /** @description The event name */
                "X-Service-Event": string;
                /** @description The payment's transactionId */
                "X-Service-Transaction": string;
                /** @description The body's timestamp */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookPayload"];
            };
        };
        responses: {
            /** @description Received; any 2xx will do */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any answer other than 2xx (or no answer) is retried, then recorded as failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
