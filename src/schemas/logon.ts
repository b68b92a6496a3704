// Logon packets of the ingestion listener (docs/client-contract.md 2.2 and 4.2); their compiled validators: checks.ts.

const team = {
  type: 'object',
  required: ['name', 'tricode', 'url'],
  properties: {
    name: { type: 'string' },
    tricode: { type: 'string' },
    url: { type: 'string' },
    attackStart: { type: 'boolean' },
  },
} as const;

export interface ObsLogonPacket {
  type: 'authenticate';
  clientVersion?: unknown;
  obsName?: string;
  key?: unknown;
  groupCode: string;
  groupSecret?: unknown;
  leftTeam: { name: string; tricode: string; url: string; attackStart?: boolean };
  rightTeam: { name: string; tricode: string; url: string; attackStart?: boolean };
  toolsData?: unknown;
}

export interface AuxLogonPacket {
  type: 'aux_authenticate';
  clientVersion?: unknown;
  name?: string;
  matchId?: unknown;
  playerId?: unknown;
}

/** Longest group code: the observer logon's limit (docs/client-contract.md 2.2); overlays and admin routes refuse longer ones too. */
export const MAX_GROUP_CODE_LENGTH = 64;

/** Check 1 of docs/client-contract.md 2.3: `type`, `groupCode` and both teams present and of the right type. */
export const obsLogonSchema = {
  type: 'object',
  required: ['type', 'groupCode', 'leftTeam', 'rightTeam'],
  properties: {
    type: { const: 'authenticate' },
    groupCode: { type: 'string', minLength: 1, maxLength: MAX_GROUP_CODE_LENGTH },
    obsName: { type: 'string' },
    leftTeam: team,
    rightTeam: team,
  },
};

export const auxLogonSchema = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { const: 'aux_authenticate' },
  },
};
