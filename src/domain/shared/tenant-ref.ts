/** The tenant a request acts for, as authentication resolved it. */
export interface TenantRef {
  id: string;
  slug: string;
  name: string;
  tmsUrlTemplate: string | null;
}
