// Generated from the service's /openapi.json by `npm run generate -w @agov/sdk`. Do not edit.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["signup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getCurrentIdentity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listUsers"];
        put?: never;
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listApiKeys"];
        put?: never;
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/evaluate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["evaluate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}/outcome": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["recordOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["verifyTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["exportTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["exportTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["exportAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["countApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getApproval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getApprovalStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["approveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["denyApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listAgents"];
        put?: never;
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/api/v1/agents/{id}/suspend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["suspendAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["revokeAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["reactivateAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listPolicyRules"];
        put?: never;
        post: operations["createPolicyRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getPolicyRule"];
        put?: never;
        post?: never;
        delete: operations["deactivatePolicyRule"];
        options?: never;
        head?: never;
        patch: operations["updatePolicyRule"];
        trace?: never;
    };
    "/api/v1/policies/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listPolicyRuleVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["testPolicyRules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listWebhooks"];
        put?: never;
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["startCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["openBillingPortal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getSubscription"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["receiveBillingEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getChatSettings"];
        put: operations["replaceChatSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/chat/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["sendTestChatMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/chat/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["receiveChatCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["getNotificationSettings"];
        put: operations["replaceNotificationSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/email-confirmations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["confirmEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorBody: {
            /** @enum {string} */
            error: "validation_error" | "unauthorized" | "forbidden" | "not_found" | "request_timeout" | "conflict" | "export_too_large" | "payload_too_large" | "idempotency_key_reused" | "rate_limit_exceeded" | "internal_error" | "billing_not_configured" | "service_unavailable";
            message: string;
            status: number;
            details?: {
                [key: string]: unknown;
            };
            trace_id?: string;
            request_id: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    } | {
                        /** @enum {string} */
                        status: "degraded";
                        degraded: ("database" | "rate_limit_counters")[];
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    signup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    organization_name: string;
                    name: string;
                    /** Format: email */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            tenant: {
                                id: string;
                                name: string;
                            };
                            user: {
                                id: string;
                                email: string;
                                name: string;
                                /** @enum {string} */
                                role: "admin" | "reviewer" | "viewer";
                                /** Format: date-time */
                                created_at: string;
                            };
                            api_key: {
                                id: string;
                                name: string;
                                prefix: string;
                                key_prefix: string;
                                scopes: string[];
                                /** Format: date-time */
                                last_used_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                expires_at: string | null;
                                key: string;
                            };
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            user: {
                                id: string;
                                email: string;
                                name: string;
                                /** @enum {string} */
                                role: "admin" | "reviewer" | "viewer";
                                /** Format: date-time */
                                created_at: string;
                            };
                            tenant: {
                                id: string;
                                name: string;
                            };
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getCurrentIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            user: {
                                id: string;
                                email: string;
                                name: string;
                                /** @enum {string} */
                                role: "admin" | "reviewer" | "viewer";
                                /** Format: date-time */
                                created_at: string;
                            } | null;
                            tenant: {
                                id: string;
                                name: string;
                            };
                            role: string | null;
                            api_key: {
                                id: string;
                                name: string;
                                scopes: string[];
                            } | null;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query: {
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            email: string;
                            name: string;
                            /** @enum {string} */
                            role: "admin" | "reviewer" | "viewer";
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** Format: email */
                    email: string;
                    password: string;
                    /** @enum {string} */
                    role: "admin" | "reviewer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            email: string;
                            name: string;
                            /** @enum {string} */
                            role: "admin" | "reviewer" | "viewer";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** Format: email */
                    email?: string;
                    password?: string;
                    /** @enum {string} */
                    role?: "admin" | "reviewer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            email: string;
                            name: string;
                            /** @enum {string} */
                            role: "admin" | "reviewer" | "viewer";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query: {
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            prefix: string;
                            key_prefix: string;
                            scopes: string[];
                            /** Format: date-time */
                            last_used_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            expires_at: string | null;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    scopes: ("evaluate" | "agents:read" | "agents:write" | "agents:lifecycle" | "policies:read" | "policies:write" | "traces:read" | "traces:write" | "approvals:read" | "approvals:write" | "admin")[];
                    /** Format: date-time */
                    expires_at?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            prefix: string;
                            key_prefix: string;
                            scopes: string[];
                            /** Format: date-time */
                            last_used_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            expires_at: string | null;
                            key: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            prefix: string;
                            key_prefix: string;
                            scopes: string[];
                            /** Format: date-time */
                            last_used_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            expires_at: string | null;
                            key: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    evaluate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    agent_id: string;
                    operation: string;
                    target_integration: string;
                    resource_scope: string;
                    /** @enum {string} */
                    data_classification: "public" | "internal" | "confidential" | "restricted";
                    context?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        decision: "allow" | "approval_required" | "deny";
                        trace_id: string;
                        approval_request_id: string | null;
                        reason: string;
                        policy_rule_id: string | null;
                        /** @enum {string} */
                        risk_classification?: "low" | "medium" | "high" | "critical";
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listTraces: {
        parameters: {
            query: {
                agent_id?: string;
                outcome?: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from?: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to?: string | unknown | unknown;
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            agent_id: string;
                            agent_name: string;
                            authority_model: string;
                            requested_operation: string;
                            target_integration: string;
                            resource_scope: string;
                            /** @enum {string} */
                            final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
                            /** Format: date-time */
                            started_at: string;
                            /** Format: date-time */
                            completed_at: string | null;
                            duration_ms: number | null;
                            event_count: number;
                            has_approval: boolean;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        agent_id: string;
                        agent_name: string;
                        authority_model: string;
                        requested_operation: string;
                        target_integration: string;
                        resource_scope: string;
                        parent_trace_id: string | null;
                        /** @enum {string} */
                        final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
                        /** Format: date-time */
                        started_at: string;
                        /** Format: date-time */
                        completed_at: string | null;
                        duration_ms: number | null;
                        events: {
                            id: string;
                            event_type: string;
                            actor_type: string;
                            actor_name: string;
                            description: string;
                            status: string;
                            /** Format: date-time */
                            timestamp: string;
                            policy_version: number | null;
                            approval_request_id: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            integrity_hash: string | null;
                        }[];
                        approval_requests: {
                            id: string;
                            status: string;
                            approver_name: string | null;
                            /** Format: date-time */
                            decided_at: string | null;
                        }[];
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    recordOutcome: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status: "success" | "error";
                    metadata?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description Default Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    verifyTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        trace_id: string;
                        valid: boolean;
                        event_count: number;
                        /** Format: date-time */
                        verified_at: string;
                        first_invalid_event?: string | null;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    exportTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        trace: {
                            id: string;
                            agent_id: string;
                            agent_name: string;
                            authority_model: string;
                            requested_operation: string;
                            target_integration: string;
                            resource_scope: string;
                            parent_trace_id: string | null;
                            /** @enum {string} */
                            final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
                            /** Format: date-time */
                            started_at: string;
                            /** Format: date-time */
                            completed_at: string | null;
                            duration_ms: number | null;
                        };
                        events: {
                            id: string;
                            event_type: string;
                            actor_type: string;
                            actor_name: string;
                            description: string;
                            status: string;
                            /** Format: date-time */
                            timestamp: string;
                            policy_version: number | null;
                            approval_request_id: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            integrity_hash: string | null;
                        }[];
                        approval_requests: {
                            id: string;
                            status: string;
                            approver_name: string | null;
                            /** Format: date-time */
                            decided_at: string | null;
                            flag_reason: string;
                            decision_note: string | null;
                        }[];
                        /** Format: date-time */
                        exported_at: string;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    exportTraces: {
        parameters: {
            query: {
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to: string | unknown | unknown;
                format: "csv";
                agent_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    exportAudit: {
        parameters: {
            query: {
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to: string | unknown | unknown;
                format: "json" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query: {
                status?: "pending" | "approved" | "denied" | "expired";
                agent_id?: string;
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            trace_id: string;
                            agent_id: string;
                            requested_operation: string;
                            target_integration: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            risk_classification: "low" | "medium" | "high" | "critical";
                            authority_model: string;
                            delegated_from: string;
                            policy_effect: string;
                            flag_reason: string;
                            /** @enum {string} */
                            status: "pending" | "approved" | "denied" | "expired";
                            context_snapshot: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            expires_at: string;
                            /** Format: date-time */
                            requested_at: string;
                            /** Format: date-time */
                            decided_at: string | null;
                            approver_name: string | null;
                            decision_note: string | null;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    countApprovals: {
        parameters: {
            query?: {
                status?: "pending" | "approved" | "denied" | "expired";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        count: number;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            trace_id: string;
                            agent_id: string;
                            requested_operation: string;
                            target_integration: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            risk_classification: "low" | "medium" | "high" | "critical";
                            authority_model: string;
                            delegated_from: string;
                            policy_effect: string;
                            flag_reason: string;
                            /** @enum {string} */
                            status: "pending" | "approved" | "denied" | "expired";
                            context_snapshot: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            expires_at: string;
                            /** Format: date-time */
                            requested_at: string;
                            /** Format: date-time */
                            decided_at: string | null;
                            approver_name: string | null;
                            decision_note: string | null;
                            agent: {
                                id: string;
                                name: string;
                                description: string;
                                owner_name: string;
                                team: string;
                                environment: string;
                                authority_model: string;
                                autonomy_tier: string;
                                lifecycle_state: string;
                            } | null;
                            trace: {
                                id: string;
                                agent_id: string;
                                agent_name: string;
                                authority_model: string;
                                requested_operation: string;
                                target_integration: string;
                                resource_scope: string;
                                /** @enum {string} */
                                final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
                                /** Format: date-time */
                                started_at: string;
                                /** Format: date-time */
                                completed_at: string | null;
                                duration_ms: number | null;
                                event_count: number;
                                has_approval: boolean;
                            } | null;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getApprovalStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "pending" | "approved" | "denied" | "expired";
                        /** Format: date-time */
                        decided_at: string | null;
                        approver_name: string | null;
                        decision_note: string | null;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    approveApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    approver_name: string;
                    decision_note?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            trace_id: string;
                            agent_id: string;
                            requested_operation: string;
                            target_integration: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            risk_classification: "low" | "medium" | "high" | "critical";
                            authority_model: string;
                            delegated_from: string;
                            policy_effect: string;
                            flag_reason: string;
                            /** @enum {string} */
                            status: "pending" | "approved" | "denied" | "expired";
                            context_snapshot: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            expires_at: string;
                            /** Format: date-time */
                            requested_at: string;
                            /** Format: date-time */
                            decided_at: string | null;
                            approver_name: string | null;
                            decision_note: string | null;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    denyApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    approver_name: string;
                    decision_note?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            trace_id: string;
                            agent_id: string;
                            requested_operation: string;
                            target_integration: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            risk_classification: "low" | "medium" | "high" | "critical";
                            authority_model: string;
                            delegated_from: string;
                            policy_effect: string;
                            flag_reason: string;
                            /** @enum {string} */
                            status: "pending" | "approved" | "denied" | "expired";
                            context_snapshot: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            expires_at: string;
                            /** Format: date-time */
                            requested_at: string;
                            /** Format: date-time */
                            decided_at: string | null;
                            approver_name: string | null;
                            decision_note: string | null;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query: {
                limit: number;
                offset: number;
                environment?: "dev" | "test" | "prod";
                lifecycle_state?: "active" | "suspended" | "revoked";
                authority_model?: "self" | "delegated" | "hybrid";
                autonomy_tier?: "low" | "medium" | "high";
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description: string;
                    owner_name: string;
                    owner_role: string;
                    team: string;
                    /** @enum {string} */
                    environment: "dev" | "test" | "prod";
                    /** @enum {string} */
                    authority_model: "self" | "delegated" | "hybrid";
                    /** @enum {string} */
                    identity_mode: "service_identity" | "delegated_identity" | "hybrid_identity";
                    /** @enum {string} */
                    delegation_model: "self" | "on_behalf_of_user" | "on_behalf_of_owner" | "mixed";
                    /** @enum {string} */
                    autonomy_tier: "low" | "medium" | "high";
                    authorized_integrations: {
                        name: string;
                        resource_scope: string;
                        /** @enum {string} */
                        data_classification: "public" | "internal" | "confidential" | "restricted";
                        allowed_operations: string[];
                    }[];
                    credential_config: Record<string, never> | null;
                    metadata: Record<string, never> | null;
                    next_review_date: string;
                    created_by: string;
                    modified_by: string;
                    /** Format: date-time */
                    modified_at: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                            stats: {
                                recent_traces: {
                                    id: string;
                                    requested_operation: string;
                                    target_integration: string;
                                    resource_scope: string;
                                    final_outcome: string;
                                    /** Format: date-time */
                                    started_at: string;
                                    /** Format: date-time */
                                    completed_at: string | null;
                                }[];
                                approval_counts: {
                                    pending: number;
                                    approved: number;
                                    denied: number;
                                    expired: number;
                                };
                                decisions_last_24h: {
                                    allow: number;
                                    approval_required: number;
                                    deny: number;
                                };
                                trace_count: number;
                            };
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string;
                    owner_name?: string;
                    owner_role?: string;
                    team?: string;
                    /** @enum {string} */
                    environment?: "dev" | "test" | "prod";
                    /** @enum {string} */
                    authority_model?: "self" | "delegated" | "hybrid";
                    /** @enum {string} */
                    identity_mode?: "service_identity" | "delegated_identity" | "hybrid_identity";
                    /** @enum {string} */
                    delegation_model?: "self" | "on_behalf_of_user" | "on_behalf_of_owner" | "mixed";
                    /** @enum {string} */
                    autonomy_tier?: "low" | "medium" | "high";
                    authorized_integrations?: {
                        name: string;
                        resource_scope: string;
                        /** @enum {string} */
                        data_classification: "public" | "internal" | "confidential" | "restricted";
                        allowed_operations: string[];
                    }[];
                    credential_config?: Record<string, never> | null;
                    metadata?: Record<string, never> | null;
                    next_review_date?: string;
                    created_by?: string;
                    modified_by?: string;
                    /** Format: date-time */
                    modified_at?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    suspendAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    revokeAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    reactivateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            description: string;
                            owner_name: string;
                            owner_role: string;
                            team: string;
                            environment: string;
                            authority_model: string;
                            identity_mode: string;
                            delegation_model: string;
                            autonomy_tier: string;
                            authorized_integrations: {
                                name: string;
                                resource_scope: string;
                                data_classification: string;
                                allowed_operations: string[];
                            }[];
                            credential_config: {
                                [key: string]: unknown;
                            } | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            next_review_date: string;
                            created_by: string;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            /** @enum {string} */
                            lifecycle_state: "active" | "suspended" | "revoked";
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listPolicyRules: {
        parameters: {
            query: {
                limit: number;
                offset: number;
                agent_id?: string;
                effect?: "allow" | "approval_required" | "deny";
                data_classification?: "public" | "internal" | "confidential" | "restricted";
                is_active?: boolean;
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            agent_id: string;
                            policy_name: string;
                            target_integration: string;
                            operation: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            policy_effect: "allow" | "approval_required" | "deny";
                            rationale: string;
                            priority: number;
                            conditions: {
                                [key: string]: unknown;
                            } | null;
                            max_session_ttl: number | null;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            is_active: boolean;
                            policy_version: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createPolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    agent_id: string;
                    policy_name: string;
                    target_integration: string;
                    operation: string;
                    resource_scope: string;
                    /** @enum {string} */
                    data_classification: "public" | "internal" | "confidential" | "restricted";
                    /** @enum {string} */
                    policy_effect: "allow" | "approval_required" | "deny";
                    rationale: string;
                    priority: number;
                    conditions: Record<string, never> | null;
                    max_session_ttl: number | null;
                    modified_by: string;
                    /** Format: date-time */
                    modified_at: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            agent_id: string;
                            policy_name: string;
                            target_integration: string;
                            operation: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            policy_effect: "allow" | "approval_required" | "deny";
                            rationale: string;
                            priority: number;
                            conditions: {
                                [key: string]: unknown;
                            } | null;
                            max_session_ttl: number | null;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            is_active: boolean;
                            policy_version: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getPolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            agent_id: string;
                            policy_name: string;
                            target_integration: string;
                            operation: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            policy_effect: "allow" | "approval_required" | "deny";
                            rationale: string;
                            priority: number;
                            conditions: {
                                [key: string]: unknown;
                            } | null;
                            max_session_ttl: number | null;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            is_active: boolean;
                            policy_version: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deactivatePolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            agent_id: string;
                            policy_name: string;
                            target_integration: string;
                            operation: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            policy_effect: "allow" | "approval_required" | "deny";
                            rationale: string;
                            priority: number;
                            conditions: {
                                [key: string]: unknown;
                            } | null;
                            max_session_ttl: number | null;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            is_active: boolean;
                            policy_version: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updatePolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    policy_name?: string;
                    target_integration?: string;
                    operation?: string;
                    resource_scope?: string;
                    /** @enum {string} */
                    data_classification?: "public" | "internal" | "confidential" | "restricted";
                    /** @enum {string} */
                    policy_effect?: "allow" | "approval_required" | "deny";
                    rationale?: string;
                    priority?: number;
                    conditions?: Record<string, never> | null;
                    max_session_ttl?: number | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            agent_id: string;
                            policy_name: string;
                            target_integration: string;
                            operation: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            policy_effect: "allow" | "approval_required" | "deny";
                            rationale: string;
                            priority: number;
                            conditions: {
                                [key: string]: unknown;
                            } | null;
                            max_session_ttl: number | null;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            is_active: boolean;
                            policy_version: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listPolicyRuleVersions: {
        parameters: {
            query: {
                limit: number;
                offset: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            policy_rule_id: string;
                            version: number;
                            policy_name: string;
                            target_integration: string;
                            operation: string;
                            resource_scope: string;
                            data_classification: string;
                            /** @enum {string} */
                            policy_effect: "allow" | "approval_required" | "deny";
                            rationale: string;
                            priority: number;
                            conditions: {
                                [key: string]: unknown;
                            } | null;
                            max_session_ttl: number | null;
                            modified_by: string;
                            /** Format: date-time */
                            modified_at: string;
                            change_summary: string | null;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    testPolicyRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    agent_id: string;
                    operation: string;
                    target_integration: string;
                    resource_scope: string;
                    /** @enum {string} */
                    data_classification: "public" | "internal" | "confidential" | "restricted";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        effect: "allow" | "approval_required" | "deny";
                        rule_id: string | null;
                        rationale: string;
                        policy_version: number | null;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            is_active: boolean;
                            description: string | null;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createWebhook: {
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
                    events: ("approval.requested" | "approval.approved" | "approval.denied" | "approval.expired" | "trace.completed" | "agent.suspended" | "agent.revoked" | "policy.updated" | "audit.event" | "audit.batch")[];
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            secret: string;
                            is_active: boolean;
                            description: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            is_active: boolean;
                            description: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    events?: ("approval.requested" | "approval.approved" | "approval.denied" | "approval.expired" | "trace.completed" | "agent.suspended" | "agent.revoked" | "policy.updated" | "audit.event" | "audit.batch")[];
                    is_active?: boolean;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            is_active: boolean;
                            description: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query: {
                status?: "pending" | "delivered" | "retrying" | "failed";
                limit: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            event_type: string;
                            /** @enum {string} */
                            status: "pending" | "delivered" | "retrying" | "failed";
                            http_status: number | null;
                            attempts: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            delivered_at: string | null;
                            /** Format: date-time */
                            next_retry_at: string | null;
                        }[];
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        delivered: boolean;
                        http_status: number | null;
                        response_time_ms: number;
                        error?: string;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    startCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    plan: "starter" | "business";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        url: string;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    openBillingPortal: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        url: string;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            plan: string;
                            status: string;
                            /** Format: date-time */
                            current_period_end: string;
                            cancel_at_period_end: boolean;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    receiveBillingEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        received: boolean;
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getChatSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @enum {object|null} */
                            mode: never | null;
                            /** @enum {boolean} */
                            enabled: false;
                        } | {
                            /** @enum {string} */
                            mode: "incoming_webhook";
                            enabled: boolean;
                            has_webhook_url: boolean;
                            /** Format: date-time */
                            updated_at: string;
                        } | {
                            /** @enum {string} */
                            mode: "bot";
                            enabled: boolean;
                            app_id: string;
                            team_id: string;
                            channel_id: string;
                            has_app_secret: boolean;
                            has_bot_token: boolean;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    replaceChatSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    mode: "incoming_webhook" | "bot";
                    enabled: boolean;
                    webhook_url?: string;
                    app_id?: string;
                    app_secret?: string;
                    bot_token?: string;
                    team_id?: string;
                    channel_id?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @enum {object|null} */
                            mode: never | null;
                            /** @enum {boolean} */
                            enabled: false;
                        } | {
                            /** @enum {string} */
                            mode: "incoming_webhook";
                            enabled: boolean;
                            has_webhook_url: boolean;
                            /** Format: date-time */
                            updated_at: string;
                        } | {
                            /** @enum {string} */
                            mode: "bot";
                            enabled: boolean;
                            app_id: string;
                            team_id: string;
                            channel_id: string;
                            has_app_secret: boolean;
                            has_bot_token: boolean;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    sendTestChatMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            delivered: boolean;
                            error: string | null;
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    receiveChatCallback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getNotificationSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            email_enabled: boolean;
                            reviewer_emails: string[];
                            /** @description The listed addresses, as written, whose owners have not confirmed them yet: they get no approval mail. */
                            unconfirmed_emails: string[];
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    replaceNotificationSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email_enabled: boolean;
                    reviewer_emails: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            email_enabled: boolean;
                            reviewer_emails: string[];
                            /** @description The listed addresses, as written, whose owners have not confirmed them yet: they get no approval mail. */
                            unconfirmed_emails: string[];
                        };
                    };
                };
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    confirmEmail: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape every error has */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
