/**
 * Support engineers' access is logged (api-contract.md D: "Admin access is logged"): one line per
 * operation made with the admin key, with the tenant it read (X-Tenant) and the operation's name, and
 * one `admin change` line per tenant administration mutation that succeeded, with what it changed.
 */
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestContext } from './context.js';

export function useAdminAudit(): Plugin<RequestContext> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      if (ctx.actor?.kind !== 'admin') return;
      const operation = getOperationAST(args.document as DocumentNode, args.operationName as string | undefined);
      ctx.log.info(
        { admin: true, tenant: ctx.actor.tenant?.slug ?? null, operationName: operation?.name?.value ?? null, operation: operation?.operation ?? null },
        'admin access',
      );
    },
  };
}

/**
 * Writes the admin audit line of a tenant administration mutation that succeeded (api-contract.md E:
 * "Each is written to the admin audit log"). `change` names what changed; never a key. Changes made
 * with a tenant's own key (its status mapping) are not admin actions and are not logged here.
 */
export function auditAdminChange(ctx: RequestContext, action: string, change: Record<string, unknown>) {
  if (ctx.actor.kind !== 'admin') return;
  ctx.log.info({ admin: true, action, ...change }, 'admin change');
}
