/** Upload URLs and document records (spec 2.6, 4.9). */
import type { UploadUrlRequest } from '../../shared/api';
import { iso } from '../clock';
import { ApiError, notFound } from '../errors';
import type { Credential, Doc } from '../model';
import type { BankState } from './state';

export class Documents {
  constructor(private readonly s: BankState) {}

  createUploadUrl(cred: Credential, body: UploadUrlRequest): { id: string; url: string; expires_at: string } {
    const rfi = this.s.rfis.get(body.related_id);
    if (!rfi || rfi.legalEntityId !== cred.legalEntityId)
      throw notFound(`related_id: RFI ${body.related_id} not found`);
    const now = this.s.now();
    const doc: Doc = {
      id: this.s.ids.id('doc'),
      legalEntityId: cred.legalEntityId,
      relatedId: rfi.id,
      contentType: body.content_type,
      documentType: body.document_type,
      createdAt: now,
      expiresAt: Math.floor((now + this.s.options.uploadUrlTtlSeconds * 1000) / 1000) * 1000,
      uploaded: false,
      sha256: null,
      sizeBytes: null,
      path: null,
      usedBy: null,
      attempts: 0,
    };
    this.s.docs.set(doc.id, doc);
    if (!this.s.signer) throw new ApiError(500, 'no URL signer');
    return { id: doc.id, url: this.s.signer.uploadUrl(doc), expires_at: iso(doc.expiresAt) };
  }

  getDocument(cred: Credential, id: string): Record<string, unknown> {
    const doc = this.s.docs.get(id);
    if (!doc || doc.legalEntityId !== cred.legalEntityId) throw notFound(`document ${id} not found`);
    if (!this.s.signer) throw new ApiError(500, 'no URL signer');
    const expiresAt = Math.floor((this.s.now() + this.s.options.uploadUrlTtlSeconds * 1000) / 1000) * 1000;
    return {
      id: doc.id,
      url: doc.uploaded ? this.s.signer.downloadUrl(doc, expiresAt) : '',
      expires_at: iso(expiresAt),
      content_type: doc.contentType,
      size_bytes: doc.sizeBytes,
    };
  }
}
