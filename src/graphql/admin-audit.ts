/**
 * Support engineers' reads are logged (api-contract.md D: "Admin access is logged"): one line per
 * operation made with the admin key, with the tenant it read (X-Tenant) and the operation's name.
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
